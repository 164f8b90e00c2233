"""The bot process runs on uvloop's event loop where it is installed (a dependency on Linux
and macOS: ``telegram_app.app.fast_event_loop``), and the loop it makes is one."""

from __future__ import annotations

import asyncio
import subprocess
import sys

import uvloop


def test_the_bots_loop_is_uvloops() -> None:
    # (in a process of its own: the test session's loop policy is left alone)
    code = ("import asyncio; from telegram_app.app import fast_event_loop; fast_event_loop(); "
            "loop = asyncio.new_event_loop(); print(type(loop).__module__); loop.close()")
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True,
                         text=True).stdout
    assert out.strip().startswith("uvloop"), out
    assert not isinstance(asyncio.get_event_loop_policy(), uvloop.EventLoopPolicy)
