"""What the soak checks once its phases are over: bids told twice in their group (read from
the fake Bot API's log) and inconsistencies in the stored state (read from the database)."""

from __future__ import annotations

import re

import psycopg

from engine import GAMES
from tests.fakebot import FakeBotAPI

BID = re.compile(r"^(?P<name>.+?) bids (?P<amount>\d+)\b")
TABLE = re.compile(r"Game #(?P<game>\d+) · round (?P<round>\d+)")
HEADING = re.compile(r"🔹 Round (?P<round>\d+)")


def told_twice(api: FakeBotAPI, shown: list[str] | None = None) -> int:
    """Bids told more than once in their group: each group message the bot sent, line by
    line in order, with the game and round of the last table (``🐺 Game #… · round …``) or
    round heading before the line; within a round bids only rise, so a player's bid of an
    amount is told once (the players' language is English). ``shown``: gets the first
    lines of the two messages of each repeat, to tell a repeat from a miscount."""
    where: dict[int, tuple[str, str]] = {}  # group -> (game, round) of the lines now
    seen: dict[tuple[int, str, str, str, str], str] = {}
    twice = 0
    for entry in api.log:
        if entry.kind not in ("send", "photo") or entry.chat_id is None or entry.chat_id >= 0:
            continue
        for line in (entry.text or "").splitlines():
            if table := TABLE.search(line):
                where[entry.chat_id] = (table["game"], table["round"])
            elif heading := HEADING.search(line):
                where[entry.chat_id] = (where.get(entry.chat_id, ("?", ""))[0],
                                        heading["round"])
            elif bid := BID.match(line.strip()):
                key = (entry.chat_id, *where.get(entry.chat_id, ("?", "?")), bid["name"],
                       bid["amount"])
                if key in seen:
                    twice += 1
                    if shown is not None:
                        shown.append(f"{key}: {seen[key]!r} / {(entry.text or '')[:160]!r}")
                seen[key] = (entry.text or "")[:160]
    return twice


def inconsistencies(url: str) -> list[str]:
    """What the stored state says is wrong: a gap or repeat in an event log, negative lives, a
    seat's ``playing`` that does not match the state (``Game.still_playing``), a finished
    game rated other than once per human player, an undone inbox row."""
    found = []
    with psycopg.connect(url) as conn:
        for game_id, n, low, high in conn.execute(
                "SELECT game_id, count(*), min(seq), max(seq) FROM game_events GROUP BY game_id"):
            if n != high - low + 1:
                found.append(f"game {game_id}: event log has gaps or repeats")
        for game_id, kind, status, state in conn.execute(
                "SELECT id, kind, status, state FROM games"):
            lives = (state or {}).get("lives", [])
            if any(v < 0 for v in lives):
                found.append(f"game {game_id}: negative lives")
            if not state:
                continue
            playing = set(GAMES[kind].still_playing(state))
            rows = conn.execute("SELECT seat, playing FROM game_players WHERE game_id = %s "
                                "AND seat IS NOT NULL", (game_id,)).fetchall()
            for seat, stored in rows:
                if stored != (seat in playing):
                    found.append(f"game {game_id}: seat {seat} playing {stored}, the state "
                                 f"says {seat in playing}")
            if status == "finished":
                rated = conn.execute("SELECT count(*) FROM rating_events WHERE game_id = %s",
                                     (game_id,)).fetchone()[0]
                humans = conn.execute("SELECT count(*) FROM game_players WHERE game_id = %s "
                                      "AND user_id IS NOT NULL", (game_id,)).fetchone()[0]
                if rated != humans:
                    found.append(f"game {game_id}: {rated} ratings for {humans} players")
        undone = conn.execute("SELECT count(*) FROM inbox WHERE done_at IS NULL").fetchone()[0]
        if undone:
            found.append(f"{undone} inbox rows never done")
    return found
