"""``python -m bench.bot_process N``: the bot exactly as ``python -m telegram_app`` runs it,
but with python-telegram-bot's ``concurrent_updates(N)`` (N > 1) as a stand-in for the
per-game update processor (issue 10, another branch); for ``bench/throughput_bench.py``."""

from __future__ import annotations

import sys

from telegram.ext import ApplicationBuilder

from telegram_app.app import main

if __name__ == "__main__":
    concurrency = int(sys.argv[1]) if len(sys.argv) > 1 else 1
    if concurrency > 1:
        plain_build = ApplicationBuilder.build

        def build(self: ApplicationBuilder):  # type: ignore[no-untyped-def]
            return plain_build(self.concurrent_updates(concurrency))

        ApplicationBuilder.build = build  # type: ignore[method-assign]
    main()
