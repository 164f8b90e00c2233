"""What lands in the group, and who is pinged: whole games through the real bot (the
Application, the embedded SQLite default) and the fake Bot API, counted per move, in a quiet
group (the default) and, side by side, with "a note per move" (``/settings``).

Counts, per game: new group messages (``sendMessage`` to the group) against the rounds
played; group calls a move (the most, and the mean); rate-limited calls a move (the mean);
turns of a human that began with a new private message, and turns told only by an edit.

Targets (README, "Message economy"): a four-player Coyote game posts at most rounds + 4 new
group messages, a four-player Koira game at most 8; at most 1 group call a move (the game's
last move closes the table too, and a move that posts a new table closes the one before it: an
edit); at most 3 rate-limited calls a move on average; every turn
of a human the bot can message begins with a new private message.

    .venv/bin/python -m bench.economy_bench [--games 3]
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path

from tests.e2e.harness import bot_table, mover, open_lobby, play_turn
from tests.e2e.koira_play import koira_mover, koira_turn_by
from tests.fakebot import FakeBotAPI, FakeUser

GROUP = -100555
RATE_LIMITED = {"sendmessage", "editmessagetext", "editmessagereplymarkup", "deletemessage",
                "sendphoto", "senddocument", "editephemeralmessagetext",
                "editephemeralmessagereplymarkup", "deleteephemeralmessage"}
NAMES = ["Ann", "Bob", "Cat", "Dan"]


@dataclass
class Figures:
    games: int = 0
    moves: int = 0
    rounds: int = 0
    posts: list[int] = field(default_factory=list)  # new group messages per game
    rounds_per_game: list[int] = field(default_factory=list)
    calls: int = 0
    group_calls: int = 0
    most_group_calls: int = 0  # in a move other than a game's last
    over_budget: int = 0  # moves (not a game's last) past 1 group call, or 2 with a new table
    pinged: int = 0
    edit_only: int = 0


def _count(api: FakeBotAPI, since: int) -> tuple[int, int]:
    calls = [r for r in api.requests[since:] if r.method.lower() in RATE_LIMITED]
    return len(calls), sum(r.params.get("chat_id") == GROUP for r in calls)


def _sends(api: FakeBotAPI, since: int, chat_id: int) -> int:
    return sum(r.method.lower() == "sendmessage" and r.params.get("chat_id") == chat_id
               for r in api.requests[since:])


async def _game(url: str, kind: str, notes: str, figures: Figures) -> None:
    command = "/newgame" if kind == "coyote" else "/newgame koira"
    async with bot_table(url, GROUP, "Economy", NAMES, notes=notes) as (api, players, runner):
        start = len(api.requests)
        lobby = await open_lobby(api, players, GROUP, command)
        await players[0].press_and_settle(lobby, "▶️ Start")
        await api.settle()

        async def acting() -> FakeUser:
            if kind == "coyote":
                return await mover(api, players)
            return (await koira_mover(api, players))[0]

        move: Callable[[], Awaitable[object]] = (
            (lambda: play_turn(api, players, GROUP)) if kind == "coyote"
            else (lambda: koira_turn_by(api, runner, players, GROUP)))
        who = await acting()
        per_move: list[int] = []
        while not api.find_messages(GROUP, "is over!"):
            before = len(api.requests)
            await move()
            await api.settle(quiet=0.05)
            calls, in_group = _count(api, before)
            posted = _sends(api, before, GROUP)
            figures.calls += calls
            figures.group_calls += in_group
            # (a move that posts a new table closes the old one: not counted against it)
            per_move.append(in_group - (posted > 0 and in_group > 1))
            figures.moves += 1
            if api.find_messages(GROUP, "is over!"):
                break
            following = await acting()
            if following.id != who.id:  # a turn began
                if _sends(api, before, following.id):
                    figures.pinged += 1
                else:
                    figures.edit_only += 1
            who = following
        figures.over_budget += sum(n > 1 for n in per_move[:-1])
        figures.most_group_calls = max([figures.most_group_calls, *per_move[:-1]])
        rounds = len({line for m in api.bot_messages(GROUP) for line in m.text.split("\n")
                      if "· round" in line or "🔹 Round" in line}) if kind == "coyote" else 2
        figures.rounds_per_game.append(rounds)
        figures.posts.append(_sends(api, start, GROUP))
        figures.games += 1


def _row(kind: str, notes: str, f: Figures) -> str:
    target = "rounds + 4" if kind == "coyote" else "8"
    posts = ", ".join(f"{p} ({r} rounds)" if kind == "coyote" else str(p)
                      for p, r in zip(f.posts, f.rounds_per_game, strict=True))
    return (f"{kind:6} {notes:10} {f.games} games, {f.moves} moves: new group messages "
            f"{posts} (target ≤ {target}); group calls a move ≤ {f.most_group_calls}, "
            f"besides closing the old table when one is posted (mean "
            f"{f.group_calls / f.moves:.2f}); rate-limited calls a move "
            f"{f.calls / f.moves:.2f}; turns pinged by a new private message {f.pinged}, "
            f"told only by an edit {f.edit_only}")


async def main(games: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        for kind in ("coyote", "koira"):
            for notes in ("quiet", "every_move"):
                figures = Figures()
                for n in range(games):
                    url = f"sqlite+aiosqlite:///{Path(tmp) / f'{kind}-{notes}-{n}.db'}"
                    await _game(url, kind, notes, figures)
                print(_row(kind, notes, figures), flush=True)
                if notes == "quiet":
                    ok = (all(p <= (r + 4 if kind == "coyote" else 8)
                              for p, r in zip(figures.posts, figures.rounds_per_game,
                                              strict=True))
                          and figures.most_group_calls <= 1 and figures.edit_only == 0)
                    print(f"       targets of the quiet group: {'met' if ok else 'MISSED'}; "
                          f"calls a move ≤ 3: "
                          f"{'met' if figures.calls / figures.moves <= 3 else 'missed'}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=3, help="games of each kind and mode")
    asyncio.run(main(parser.parse_args().games))
