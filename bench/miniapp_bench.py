"""Mini App benchmark (not a test): how soon an open page shows a move made by button.

The real bot against the fake Bot API (PostgreSQL), the Mini App served beside it, one
player's table open in headless Chromium. Each turn, the player to act presses a button in
their private chat; measured: from the press to the page showing the game's new version
(the bot handles the update and commits, the event stream sees the version, the page
fetches and redraws). Target: within a second.

Run: ``.venv/bin/python -m bench.miniapp_bench [--turns 40]``.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time

from bench.pg import throwaway_database
from tests.e2e.harness import bot_table, choose, private_turn_message, start_game, wait_for
from tests.miniapp.browser import chromium, phone
from tests.miniapp.server import miniapp_server, page_url

GROUP = -100321


async def run(turns: int) -> list[float]:
    async with throwaway_database() as db:
        url = db.engine.url.render_as_string(hide_password=False)
        async with bot_table(url, GROUP, "Bench", ["Ann", "Bob", "Cat", "Dan"]) as (
                api, players, runner), miniapp_server(runner.app) as base, \
                chromium() as browser:
            await start_game(api, players, GROUP)
            watcher = players[0]
            page = await phone(browser)
            await page.goto(page_url(base, api.token, watcher.id, watcher.first_name, "g1"))
            await page.wait_for_selector(".table")
            delays = []
            for _ in range(turns):
                if api.find_messages(GROUP, "is over!"):
                    break
                await wait_for(lambda: any(private_turn_message(api, u) for u in players))
                await api.settle(quiet=0.05)
                offers = [(u, m) for u in players if (m := private_turn_message(api, u))]
                user, message = offers[0]
                shown = int(await page.locator(".table").get_attribute("data-version"))
                start = time.perf_counter()
                await user.press(message, choose(api, message))
                await page.wait_for_function(
                    "v => { const t = document.querySelector('.table');"
                    " return t && Number(t.dataset.version) > v; }", arg=shown, timeout=30_000)
                delays.append(time.perf_counter() - start)
            return delays


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--turns", type=int, default=40)
    delays = asyncio.run(run(parser.parse_args().turns))
    ms = sorted(d * 1000 for d in delays)
    print(f"{len(ms)} moves by button seen on the page: p50 {statistics.median(ms):.0f} ms, "
          f"p90 {ms[int(len(ms) * 0.9) - 1]:.0f} ms, max {ms[-1]:.0f} ms (target ≤ 1000 ms)")


if __name__ == "__main__":
    main()
