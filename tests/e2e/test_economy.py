"""Message economy (README, "Message economy"): counted through the fake Bot API over a whole
game of four humans. During a round the group's table is edited in place (one group call a
move); a new group message is posted only for the lobby, a round's start (its showdown heads
the new table) and the end. The player whose turn begins gets a new (notifying) private
message; the mover's message loses its buttons. Counted, not timed."""

from __future__ import annotations

from collections import Counter

from tests.e2e.harness import (
    assert_no_old_table_live,
    bot_table,
    move_version,
    mover,
    open_lobby,
    play_turn,
)

GROUP = -100777
RATE_LIMITED = {"sendmessage", "editmessagetext", "editmessagereplymarkup", "deletemessage",
                "sendphoto", "senddocument"}
"""Calls that count against Telegram's flood limits (answerCallbackQuery does not)."""


def _counted(api, since: int) -> tuple[int, int]:
    """Rate-limited calls after request ``since``: (all, those in the group)."""
    calls = [r for r in api.requests[since:] if r.method.lower() in RATE_LIMITED]
    return len(calls), sum(r.params.get("chat_id") == GROUP for r in calls)


def _sends(api, since: int, chat_id: int) -> int:
    return sum(r.method.lower() == "sendmessage" and r.params.get("chat_id") == chat_id
               for r in api.requests[since:])


async def test_a_quiet_group_and_one_ping_a_turn(pg_db, pg_url) -> None:
    async with bot_table(pg_url, GROUP, "Economy", ["Ann", "Bob", "Cat", "Dan"]) as (
            api, players, _runner):
        start = len(api.requests)
        lobby = await open_lobby(api, players, GROUP)
        await players[0].press_and_settle(lobby, "▶️ Start")
        await api.settle()
        since = len(api.requests)
        per_move: list[tuple[int, int]] = []
        posted: list[int] = []  # new group messages a move
        acting = await mover(api, players)
        while not api.find_messages(GROUP, "is over!"):
            before = len(api.requests)
            assert await play_turn(api, players, GROUP)
            await api.settle(quiet=0.05)
            per_move.append(_counted(api, before))
            posted.append(_sends(api, before, GROUP))
            assert len(per_move) < 400
            if api.find_messages(GROUP, "is over!"):
                break
            following = await mover(api, players)
            # a turn that begins is told by exactly one new private message (an edit does not
            # notify); the same player acting again in one turn is not pinged twice
            pings = _sends(api, before, following.id)
            assert pings == (1 if following.id != acting.id else pings), \
                (following.first_name, pings)
            assert pings <= 1
            acting = following
        moves = len(per_move)
        total, group = _counted(api, since)
        posts = _sends(api, start, GROUP)
        rounds = len({line for m in api.bot_messages(GROUP) for line in m.text.split("\n")
                      if "· round" in line})
        print(f"\n{moves} moves, {rounds} rounds: {total / moves:.2f} calls per move, "
              f"{group / moves:.2f} in the group, {posts} new group messages; per move "
              f"(all, group): {sorted(Counter(per_move).items())}")
        # One group call a move; a move that posts the next round's table also closes the
        # table before it (an edit: silent), so no old table looks live.
        assert all(in_group <= 1 + new for (_, in_group), new
                   in zip(per_move[:-1], posted, strict=False)), per_move
        assert posts <= rounds + 4, (posts, rounds)
        # a move within a round: the table, the mover's message, the next player's ping
        assert Counter(per_move).most_common(1)[0][0] == (3, 1), per_move
        # The game's end closes each player's newest private message.
        await api.settle()
        assert_no_old_table_live(api, GROUP)
        for player in players:
            last = api.bot_messages(player.id)[-1]
            assert move_version(api, last) is None, (player.first_name, last.text)
        # Nobody's chat holds two keyboards of the game: only the newest message has buttons.
        for player in players:
            live = [m for m in api.bot_messages(player.id) if move_version(api, m) is not None]
            assert not live, (player.first_name, [m.text[:40] for m in live])


async def test_a_note_per_move_and_the_private_chats_as_in_a_quiet_group(pg_db,
                                                                         pg_url) -> None:
    """With "a note per move" (/settings): every move one group note naming the next player;
    the private chats as in a quiet group: the player to act pinged by a new message, the
    mover's buttons gone, never two keyboards of the game in one chat."""
    async with bot_table(pg_url, GROUP, "Economy", ["Ann", "Bob", "Cat", "Dan"],
                         notes="every_move") as (api, players, _runner):
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
            for player in players:
                live = [m for m in api.bot_messages(player.id)
                        if move_version(api, m) is not None]
                assert len(live) <= 1, (player.first_name, [m.text[:40] for m in live])
        total, group = _counted(api, since)
        print(f"\n{moves} moves: {total / moves:.2f} calls per move, {group / moves:.2f} in "
              f"the group; per move (all, group): {sorted(set(per_move))}")
        # (the last move also takes the 👀 off the last table: once a game)
        assert all(in_group <= 1 for _, in_group in per_move[:-1]), per_move
        # a move within a round: the note, the mover's message, the next player's ping (3,
        # not the 2 of an edit that would not notify: `bench.economy_bench` has the means)
        assert Counter(per_move).most_common(1)[0][0] == (3, 1), per_move
        # The game's end closes each player's newest private message: a player knocked out
        # in an earlier round got no message of the later ones, and theirs may still have
        # said it was their turn, with its buttons (the mover's message is redrawn at their
        # next turn, and they had none).
        await api.settle()
        for player in players:
            last = api.bot_messages(player.id)[-1]
            assert move_version(api, last) is None, (player.first_name, last.text)
