"""Koira's message economy (README, "Message economy"), counted through the fake Bot API over
a whole game of three humans (each press one move): during a phase the group's table is
edited in place (one group call a move, never a new message); a new group message is posted
only for the lobby, the start, phase 2 and the end. The player whose turn begins gets a new
(notifying) private message; the mover's is redrawn without buttons. Counted, not timed."""

from __future__ import annotations

import asyncio

from tests.e2e.harness import assert_no_old_table_live, bot_table, open_lobby
from tests.e2e.koira_play import koira_mover, koira_turn_by, koira_version, service_of

GROUP = -100882
SEED = 20261202
RATE_LIMITED = {"sendmessage", "editmessagetext", "editmessagereplymarkup", "deletemessage",
                "sendphoto", "senddocument"}
"""Calls that count against Telegram's flood limits (answerCallbackQuery does not)."""


def _counted(api, since: int) -> tuple[int, int, int, int]:
    """Rate-limited calls after request ``since``: (all, those in the group, group edits of
    a text, private keyboard redraws of a selection tap)."""
    calls = [r for r in api.requests[since:] if r.method.lower() in RATE_LIMITED]
    group = [r for r in calls if r.params.get("chat_id") == GROUP]
    taps = [r for r in calls if r.params.get("chat_id") != GROUP
            and r.method.lower() == "editmessagereplymarkup"]
    return len(calls), len(group), sum(r.method.lower() == "editmessagetext" for r in group), \
        len(taps)


async def test_a_quiet_koira_group(pg_db, pg_url) -> None:
    async with bot_table(pg_url, GROUP, "Economy", ["Ann", "Bob", "Cat"]) as (
            api, players, runner):
        service_of(runner).new_seed = lambda: SEED  # the same deal, the same figures
        lobby = await open_lobby(api, players, GROUP, "/newgame koira")
        await players[0].press_and_settle(lobby, "▶️ Start")
        await api.settle()
        since, per_move = len(api.requests), []
        while not api.find_messages(GROUP, "is over!"):
            before = len(api.requests)
            await koira_turn_by(api, runner, players, GROUP)
            await api.settle(quiet=0.05)
            per_move.append(_counted(api, before))
            assert len(per_move) < 400
        moves = len(per_move)
        total, group, _, taps = _counted(api, since)
        private = [all_ - in_group - tapped for all_, in_group, _, tapped in per_move]
        print(f"\n{moves} moves: {(total - taps) / moves:.2f} rate-limited calls per move "
              f"({group / moves:.2f} in the group, {sum(private) / moves:.2f} private, at "
              f"most {max(private)}), and {taps} keyboard redraws for the selection taps of "
              f"sequences; per move (all, group): {sorted({(a, g) for a, g, _, _ in per_move})}")
        posts = sum(r.method.lower() == "sendmessage" and r.params.get("chat_id") == GROUP
                    for r in api.requests[since:])
        print(f"new group messages after the start: {posts}")
        # one group call a move (the table's edit) but at the end of a phase and of the game
        # one group call a move, two when phase 2's table is posted (the phase-1 table
        # before it is closed: an edit)
        assert all(in_group <= 1 for _, in_group, _, _ in per_move[:-1]
                   if in_group != 2), per_move
        assert sum(in_group == 2 for _, in_group, _, _ in per_move[:-1]) <= 1, per_move
        assert posts <= 4, posts  # phase 2's table, its note, the end (the start: before)
        await api.settle()
        assert_no_old_table_live(api, GROUP)
        # private: the mover, the next player's ping and those whose hand the move changed
        assert max(private) <= 4, private


async def test_a_koira_move_is_one_group_message(pg_db, pg_url) -> None:
    """With "a note per move" (/settings): every move one group message, the table never
    edited; the private chats as in a quiet group."""
    async with bot_table(pg_url, GROUP, "Economy", ["Ann", "Bob", "Cat"],
                         notes="every_move") as (api, players, runner):
        service_of(runner).new_seed = lambda: SEED  # the same deal, the same figures
        lobby = await open_lobby(api, players, GROUP, "/newgame koira")
        await players[0].press_and_settle(lobby, "▶️ Start")
        await api.settle()
        since, per_move = len(api.requests), []
        while not api.find_messages(GROUP, "is over!"):
            before = len(api.requests)
            acting, *_ = await koira_turn_by(api, runner, players, GROUP)
            await api.settle(quiet=0.05)
            per_move.append(_counted(api, before))
            assert len(per_move) < 400
            if not api.find_messages(GROUP, "is over!"):
                # a turn that begins is told by a new private message (an edit does not
                # notify), a new trick's first too
                following, _ = await koira_mover(api, players)
                sent = sum(r.method.lower() == "sendmessage"
                           and r.params.get("chat_id") == following.id
                           for r in api.requests[before:])
                assert sent == (1 if following.id != acting.id else sent), \
                    (following.first_name, sent)
        moves = len(per_move)
        total, group, _, taps = _counted(api, since)
        private = [all_ - in_group - tapped for all_, in_group, _, tapped in per_move]
        print(f"\n{moves} moves: {(total - taps) / moves:.2f} rate-limited calls per move "
              f"({group / moves:.2f} in the group, {sum(private) / moves:.2f} private, at "
              f"most {max(private)}), and {taps} keyboard redraws for the selection taps of "
              f"sequences; per move (all, group): {sorted({(a, g) for a, g, _, _ in per_move})}")
        # one group message a move, never an edit of the table (the last move also takes
        # the 👀 off the last table: once a game)
        assert all(in_group == 1 for _, in_group, _, _ in per_move[:-1]), per_move
        assert not any(edits for _, _, edits, _ in per_move), per_move
        assert per_move[-1][1] == 2
        # private: the mover, the next player's ping and those whose hand the move changed
        assert max(private) <= 4, private


async def test_a_player_the_computer_stood_in_for_is_pinged_when_they_lead_next(
        pg_db, pg_url) -> None:
    """Each trick's last card is left to run out of time: the computer plays it. When that
    card wins the trick, the turn comes back to the player who was away; they get a new
    private message (an edit would not notify them, and the clock runs again), and the one
    of the turn they missed goes: one live keyboard in their chat."""
    from tests.clock import Clock

    clock = Clock()
    async with bot_table(pg_url, GROUP, "Economy", ["Ann", "Bob", "Cat"], clock=clock,
                         sweep_interval=0.05) as (api, players, runner):
        service = service_of(runner)
        service.new_seed = lambda: SEED
        lobby = await open_lobby(api, players, GROUP, "/newgame koira")
        await players[0].press_and_settle(lobby, "▶️ Start")
        await api.settle()
        game = (await service.open_games_in(GROUP))[0]
        came_back = 0
        for _ in range(200):
            game = await service.get(game.id)
            if game.status != "running" or game.state["phase"] != 1 or came_back >= 2:
                break
            if len(game.state["trick"]) < 2 or game.state.get("tied"):
                await koira_turn_by(api, runner, players, GROUP)
                await api.settle(quiet=0.05)
                continue
            away = game.state["turn"]
            user = next(u for u in players if u.id == game.at_seat(away).user_id)
            before = len(api.requests)
            clock.advance(3700)
            for _wait in range(200):
                if (await service.get(game.id)).version > game.version:
                    break
                await asyncio.sleep(0.05)
            await api.settle(quiet=0.2)
            after = await service.get(game.id)
            if after.status == "running" and after.state["turn"] == away:
                came_back += 1
                sent = [r for r in api.requests[before:] if r.method.lower() == "sendmessage"
                        and r.params.get("chat_id") == user.id]
                assert len(sent) == 1, (user.first_name, [r.method for r in api.requests[
                    before:] if r.params.get("chat_id") == user.id])
                live = [m for m in api.bot_messages(user.id) if koira_version(api, m)]
                assert len(live) == 1, [m.text[-80:] for m in live]
        assert came_back, "no trick won by a stood-in card: choose another seed"
