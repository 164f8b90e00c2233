"""``make demo``: a whole Coyote game played through the real bot.

The real Application runs against the fake Bot API on loopback, on SQLite (the embedded
default driver) in a temporary folder. Four scripted players join with the lobby buttons and
play by pressing the buttons of their private messages (bid up to the sum of the cards they can
see plus two, then call Coyote). The group chat and one player's private chat are printed as a
transcript until the winner is announced.

The Mini App is served beside the bot: the demo prints the URL of Bruno's table (signed
``initData`` in the fragment, as Telegram opens it). ``DEMO_PAUSE=2`` waits that many seconds
between turns and ``DEMO_LINGER=120`` keeps the page served after the end, to watch the game
in a browser.
"""

from __future__ import annotations

import asyncio
import logging
import os
import sys
import tempfile
from pathlib import Path

from tests.e2e.harness import BotRunner, play_turn
from tests.fakebot import FakeBotAPI, render_transcript
from tests.fakebot.transcript import INVISIBLE
from tests.miniapp.server import miniapp_server, page_url

GROUP = -100123
MAX_TURNS = 500


async def demo(seed_dir: Path) -> int:
    """Play one game; print the transcripts; return 0 once a winner is announced."""
    async with FakeBotAPI() as api:
        api.add_group(GROUP, "Friday Coyote", admins=[101])
        players = [api.add_user(101, "Ana"), api.add_user(102, "Bruno"),
                   api.add_user(103, "Chloé"), api.add_user(104, "Dmitri")]
        for user in players:
            await user.start_bot()
        runner = BotRunner(api, f"sqlite+aiosqlite:///{seed_dir / 'coyote-league.sqlite3'}")
        await runner.start()
        pause = float(os.environ.get("DEMO_PAUSE") or 0)
        linger = float(os.environ.get("DEMO_LINGER") or 0)
        try:
            async with miniapp_server(runner.app) as base:
                await players[0].send(GROUP, "/newgame")
                await api.settle(quiet=0.1)
                lobby = api.find_messages(GROUP, "new game #")[-1]
                for user in players[1:]:
                    await user.press_and_settle(lobby, "✋ Join", quiet=0.05)
                await players[0].press_and_settle(lobby, "▶️ Start", quiet=0.05)
                print("Mini App: Bruno's table in a browser (DEMO_PAUSE=2 DEMO_LINGER=120 "
                      "make demo to watch it):\n"
                      + page_url(base, api.token, players[1].id, players[1].first_name, "g1")
                      + "\n", flush=True)
                turns = 0
                while not api.find_messages(GROUP, "is over!") and turns < MAX_TURNS:
                    if not await play_turn(api, players, GROUP):
                        break
                    turns += 1
                    if pause:
                        await asyncio.sleep(pause)  # a person watches: real time, on purpose
                if linger:
                    await asyncio.sleep(linger)
        finally:
            await runner.stop()
        print(render_transcript(api, GROUP, title="Group chat: Friday Coyote (each edit of the "
                                "table shown by the line it added)", brief_edits=True))
        print()
        print(render_transcript(api, players[1].id, title="Bruno's private chat with the bot"))
        over = api.find_messages(GROUP, "is over!")
        if not over:
            print(f"\nThe game did not finish within {turns} turns.", file=sys.stderr)
            return 1
        result = over[-1].text.translate(INVISIBLE)
        print(f"\nThe game ended after {turns} turns:\n{result}")
        return 0


def main() -> int:
    """Entry point of ``python -m tests.e2e.demo``."""
    logging.basicConfig(level=logging.WARNING)
    with tempfile.TemporaryDirectory(prefix="coyote-demo-") as folder:
        return asyncio.run(demo(Path(folder)))


if __name__ == "__main__":
    sys.exit(main())
