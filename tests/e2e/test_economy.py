"""Message economy (README, Playing): counted through the fake Bot API over a whole game of
four humans. Every move sends one group message (its note, naming the next player) and
edits at most the private messages of the player who moved and of the player to act; a
round's end adds its new table and the new round's private messages. Counted, not timed."""

from __future__ import annotations

from tests.e2e.harness import bot_table, move_version, open_lobby, play_turn

GROUP = -100777
RATE_LIMITED = {"sendmessage", "editmessagetext", "editmessagereplymarkup", "deletemessage",
                "sendphoto", "senddocument"}
"""Calls that count against Telegram's flood limits (answerCallbackQuery does not)."""


def _counted(api, since: int) -> tuple[int, int]:
    """Rate-limited calls after request ``since``: (all, those in the group)."""
    calls = [r for r in api.requests[since:] if r.method.lower() in RATE_LIMITED]
    return len(calls), sum(r.params.get("chat_id") == GROUP for r in calls)


async def test_a_move_costs_at_most_three_calls_and_one_in_the_group(pg_db, pg_url) -> None:
    async with bot_table(pg_url, GROUP, "Economy", ["Ann", "Bob", "Cat", "Dan"]) as (
            api, players, _runner):
        lobby = await open_lobby(api, players, GROUP)
        await players[0].press_and_settle(lobby, "▶️ Start")
        await api.settle()
        since, moves = len(api.requests), 0
        per_move: list[tuple[int, int]] = []
        while not api.find_messages(GROUP, "is over!"):
            before = len(api.requests)
            assert await play_turn(api, players, GROUP)
            await api.settle(quiet=0.05)
            per_move.append(_counted(api, before))
            moves += 1
            assert moves < 400
        total, group = _counted(api, since)
        print(f"\n{moves} moves: {total / moves:.2f} calls per move, {group / moves:.2f} in "
              f"the group; per move (all, group): {sorted(set(per_move))}")
        # (the last move also takes the 👀 off the last table: once a game)
        assert all(in_group <= 1 for _, in_group in per_move[:-1]), per_move
        assert total / moves <= 3.0, per_move
        # The game's end closes each player's newest private message: a player knocked out
        # in an earlier round got no message of the later ones, and theirs may still have
        # said it was their turn, with its buttons (the mover's message is redrawn at their
        # next turn, and they had none).
        await api.settle()
        for player in players:
            last = api.bot_messages(player.id)[-1]
            assert move_version(api, last) is None, (player.first_name, last.text)
