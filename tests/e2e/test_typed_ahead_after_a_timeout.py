"""A move typed ahead by a player whose last turn timed out: typed while another player was
to act, after the computer had played their turn, and handed to the bot only once their
next turn's message was out (Telegram's side: updates queue behind a busy bot or a slow
webhook). The bot cannot tell it from a move typed for the turn the computer played (both
were sent before the new turn's message; ``league/match/moves.py`` ``_check_typed``), so it
is refused, politely, and nothing is played; typed again, it is. A player whose turn did not
time out has the same late move played (the control)."""

from __future__ import annotations

import pytest

from telegram_app.services import KEY
from tests.e2e.clock_helpers import (
    GROUP,
    bot_fixture,  # noqa: F401 (a fixture)
)
from tests.e2e.harness import mover, open_lobby, press_move, private_turn_message, wait_for
from tests.e2e.test_session_review_findings import Late

REFUSED = ("⏰ That was sent before this turn's message, so I did not play it: it may have "
           "been meant for the turn the computer played for you. Type it again if you still "
           "mean it.")
AHEAD = "40"  # (above any bid of the round so far: the others bid the lowest)


def _lowest_bid(api, message) -> str:  # type: ignore[no-untyped-def]
    return min((int(d.split(":")[3]), d) for _, d in api.buttons(message)
               if d and d.startswith("b:") and d.count(":") == 3)[1]


def _bids_of(api, user) -> list[str]:  # type: ignore[no-untyped-def]
    return [m.text or "" for m in api.find_messages(GROUP, f"{user.first_name}\u2069 bids {AHEAD}")]


@pytest.mark.parametrize("timed_out", [True, False], ids=["timed_out", "control"])
async def test_a_move_typed_ahead_after_a_timeout_is_refused_politely(bot, timed_out) -> None:
    """Ann's turn runs out (the computer bids for her; her message reads "⏰ Your time ran out: the
    computer played your last turn for you. … Waiting for Bob.") and she types "40" for her next
    turn while Bob and Cat are to act; the bot reads it only after her new turn's message ("Your
    turn: bid … or more, or call Coyote!"). It answers "⏰ That was sent before this turn's
    message, so I did not play it: it may have been meant for the turn the computer played for
    you. Type it again if you still mean it." (before, "⏰ Your time ran out before that arrived
    …", which right under the new turn's message read as if the new turn had run out) and plays
    nothing: by the rules (shared/rules/coyote.md, "Turn structure") a player bids on their
    turn, and the bot cannot tell this text from one typed for the turn the computer played
    (README, "The clock": not played on the next one). Typed again, it is played. The control:
    Ann bids herself instead, and the same late "40" is played."""
    api, players, clock, runner = bot
    runner.app.bot_data[KEY].service.new_seed = lambda: 1  # (the same deal every run)
    lobby = await open_lobby(api, players, GROUP)
    await players[0].press_and_settle(lobby, "▶️ Start")
    ann = await mover(api, players)
    others = [p for p in players if p is not ann]
    if timed_out:
        clock.advance(3601)
        await wait_for(lambda: bool(api.find_messages(GROUP, "ran out of time")))
    else:
        message = private_turn_message(api, ann)
        await press_move(api, ann, message, _lowest_bid(api, message))
    await api.settle(quiet=0.3)
    seen = api.bot_messages(ann.id)[-1]
    assert "Waiting for" in (seen.text or "") and not api.buttons(seen), seen.text
    assert ("the computer played your last turn for you" in (seen.text or "")) == timed_out
    late = Late(api, ann, AHEAD)
    typed = await ann.send(ann.id, AHEAD)  # typed ahead: not her turn
    for _ in others:  # Bob and Cat bid: the turn is Ann's again
        who = await mover(api, others)
        message = private_turn_message(api, who)
        await press_move(api, who, message, _lowest_bid(api, message))
    await wait_for(lambda: private_turn_message(api, ann) is not None)
    await api.settle(quiet=0.3)
    turn = private_turn_message(api, ann)
    assert turn is not None and turn.message_id > typed.message_id
    late.arrive()
    await api.settle(quiet=0.5)
    answers = [m.text or "" for m in api.bot_messages(ann.id) if m.message_id > turn.message_id]
    if not timed_out:
        assert answers == [] and _bids_of(api, ann), answers
        return
    assert len(answers) == 1 and answers[0].endswith(REFUSED), answers
    assert answers[0].startswith("👥 \u2068Slow group\u2069\n"), answers  # (which game)
    assert not _bids_of(api, ann)
    assert api.buttons(api.get_message(ann.id, turn.message_id))  # (her turn goes on)
    await ann.send(ann.id, AHEAD)  # typed again, on her turn
    await wait_for(lambda: bool(_bids_of(api, ann)))
