"""The bot process runs on uvloop's event loop where it is installed (a dependency on Linux
and macOS: ``telegram_app.app.event_loop_factory``), with asyncio's API: polling sets it as
the current loop for ``run_polling``, the web app runs in an ``asyncio.Runner`` on it."""

from __future__ import annotations

import asyncio

import pytest

from telegram_app.app import event_loop_factory

uvloop = pytest.importorskip("uvloop")


def test_the_bots_loop_is_uvloops_and_runs_asyncio_code() -> None:
    new_loop = event_loop_factory()
    loop = new_loop()
    try:
        assert isinstance(loop, uvloop.Loop)
        assert loop.run_until_complete(asyncio.sleep(0, result="ran")) == "ran"
    finally:
        loop.close()
    with asyncio.Runner(loop_factory=new_loop) as runner:
        assert isinstance(runner.get_loop(), uvloop.Loop)
