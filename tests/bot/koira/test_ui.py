"""Koira's GameUI: presses (plays, selections, forged and stale ones), reports and their
table flags, whose private messages are redrawn, typed cards, the lobby."""

from __future__ import annotations

from dataclasses import replace

import pytest

from engine.core import Action
from engine.koira.cards import DECK
from league.store.errors import ServiceError
from telegram_app.games import base, registry
from telegram_app.games.base import GameUI
from telegram_app.games.koira import keyboards
from telegram_app.games.koira.replay import replay_part
from telegram_app.games.koira.ui import KOIRA
from telegram_app.games.registry import Press
from telegram_app.i18n import use_language
from tests.bot.koira.helpers import GAME, apply, dealt, play_random, snapshot
from tests.engine.koira_helpers import phase2

try:
    from league.match.outcome import Step
except ImportError:  # before the league's refactor is merged
    from league.service import Step  # type: ignore[no-redef]

HANDS = [["9C", "2S", "2H"], ["KD", "3C", "2D"], ["4S", "5S", "6S"], ["KH", "7D", "8S"]]


@pytest.fixture
def registered():
    """Koira's UI in the registry for the test (as it is once the bot registers it)."""
    had = registry.UIS.get("koira")
    registry.register(KOIRA)
    yield
    if had is None:
        registry.unregister("koira")


def step(state: dict, events: list[dict], seat: int = 0) -> Step:
    return Step(seat, False, events, state)


def test_it_is_a_game_ui_and_registers() -> None:
    assert isinstance(KOIRA, GameUI)
    had = registry.UIS.get("koira")
    registry.register(KOIRA)
    try:
        assert registry.ui_for("koira") is KOIRA
        assert registry.kind_of_verb("ky") == "koira" and registry.arity("ky") == (2, 3)
    finally:
        if had is None:
            registry.unregister("koira")


def test_press_selects_then_plays_a_sequence() -> None:
    state = phase2([["5H", "6H", "7H", "9S"], ["2C", "3C"], ["4D", "AD"]], trump="S")
    game = snapshot(state)
    hand = GAME.view(state, 0)["hand"]
    mask = keyboards.mask_of(hand, ["5H", "6H"])
    rows = KOIRA.press(game, Press("kt", game.id, (game.version, mask)), 0, False)
    assert isinstance(rows, list)
    labels = [b.text for row in rows for b in row]
    assert "✅ 5♥️" in labels and "✅ 6♥️" in labels and "▶️ Play 5♥️ 6♥️" in labels
    action = KOIRA.press(game, Press("ky", game.id, (game.version, mask)), 0, False)
    assert action == Action("play", cards=("5H", "6H"))


@pytest.mark.parametrize(("press", "seat", "in_group", "code"), [
    (Press("ky", 41, (7, 1 << 9)), 0, False, "bad_button"),  # past the hand
    (Press("ky", 41, (7, 3)), 0, False, "bad_button"),  # two cards in phase 1
    (Press("ky", 41, (6, 1)), 0, False, "stale"),
    (Press("ky", 41, (7, 1)), 1, False, "not_your_turn"),
    (Press("ky", 41, (7, 1)), 0, True, "bad_button"),  # no move buttons on the table
    (Press("kt", 41, (7, 1)), 0, False, "bad_button"),  # no selection in phase 1
    (Press("kh", 41, (7,)), 0, False, "bad_button"),  # no pick-up in phase 1
    (Press("ky", 41, (7,)), 0, False, "bad_button"),  # no mask
    (Press("ky", 41, (7, 1, 0)), 0, False, "bad_button"),  # a zero high half is never drawn
    (Press("zz", 41, (7, 1)), 0, False, "bad_button"),
    (Press("ky", 41, (7, 1)), None, False, "not_a_player"),
])
def test_forged_presses_are_refused(press: Press, seat: int | None, in_group: bool,
                                    code: str) -> None:
    game = snapshot(dealt(HANDS))
    with pytest.raises(ServiceError) as err:
        KOIRA.press(game, press, seat, in_group)
    assert err.value.code == code


def test_direct_actions_need_no_game() -> None:
    assert KOIRA.direct_action(Press("kw", 41, (7,))) == Action("stock")
    assert KOIRA.direct_action(Press("kh", 41, (7,))) == Action("pickup")
    assert KOIRA.direct_action(Press("ky", 41, (7, 1))) is None
    assert KOIRA.direct_action(Press("kw", 41, (7, 1))) is None


def test_buttons_are_presses_the_bot_parses(registered) -> None:
    state = phase2([["5H", "6H", "7H", "9S"], ["2C", "3C"], ["4D", "AD"]], trump="S")
    game = snapshot(state)
    for row in KOIRA.private_rows(game, 0):
        for button in row:
            verb, game_id, *numbers = button.callback_data.split(":")
            press = Press(verb, int(game_id), tuple(int(n) for n in numbers))
            assert press.encode() == button.callback_data and press.version == game.version
            assert len(numbers) in registry.arity(verb)
            assert all(len(n) <= 12 for n in numbers)


def test_reports_and_their_table_flags() -> None:
    state = dealt(HANDS)
    state, events = apply(state, 0, Action("play", cards=("9C",)))
    game = snapshot(state)
    mid = KOIRA.report(game, [step(state, events)])
    assert mid.lines[0] == "⁨Kim⁩ plays <b>9♣️</b>."
    assert mid.lines[-1] == '➡️ <a href="tg://user?id=1001">⁨Sato⁩</a>, your turn.'
    # one group message a move: the note carries the trick, the table is never edited
    assert "On the table: ⁨Kim⁩ <b>9♣️</b>" in mid.lines
    assert not mid.new_table and mid.closed is None
    assert KOIRA.redraw_seats(game, events) == {0}
    steps = []
    for seat, card in ((1, "KD"), (2, "4S"), (3, "KH"), (1, "3C"), (3, "7D")):
        state, events = apply(state, seat, Action("play", cards=(card,)))
        steps.append(step(state, events, seat))
    end = KOIRA.report(snapshot(state), steps[-1:])
    assert end.new_table
    assert KOIRA.opens_table(steps[-1].events)
    assert "🔹 Trick 2: ⁨Park⁩ leads." in end.lines
    assert "your turn" not in end.lines[-1]  # the new table mentions Park
    assert KOIRA.table_text(snapshot(state), mention=True).endswith(
        '<a href="tg://user?id=1003">⁨Park⁩</a>, your turn.')
    assert KOIRA.redraw_seats(snapshot(state), steps[-1].events) == {0, 1, 2, 3}
    assert KOIRA.report(snapshot(state), steps, mention=False).lines[-1] != mid.lines[-1]


def test_the_phase_change_closes_hand_1_and_the_end_closes_the_last(registered) -> None:
    history = play_random(4, 3)
    for state, events in history:
        if any(e["type"] == "phase_changed" for e in events):
            rep = KOIRA.report(snapshot(state), [step(state, events)])
            assert rep.closed == 1 and rep.new_table
            assert KOIRA.redraw_seats(snapshot(state), events) is None
            assert base.hand_number(snapshot(state)) == 2
            break
    else:
        pytest.fail("no phase change")
    state, events = history[-1]
    rep = KOIRA.report(snapshot(state), [step(state, events)])
    assert rep.closed == 2 and not rep.new_table
    assert "🏁 Koira #41 is over!" in "\n".join(rep.lines)
    assert "your turn" not in "\n".join(rep.lines)
    assert base.is_over(snapshot(state))
    assert not any(KOIRA.in_hand(snapshot(state), s) for s in range(3)
                   if GAME.view(state, None)["koira"] != s)
    assert "🐕" in KOIRA.game_over_text(snapshot(state))
    replay = KOIRA.replay_lines(snapshot(state), [e for _, e in history])
    assert replay[-1].startswith("🐕 koira:")


def test_typed_cards() -> None:
    state = phase2([["5H", "6H", "7H", "9S"], ["2C", "3C"], ["4D", "AD"]], trump="S")
    game = snapshot(state)
    assert KOIRA.typed(game, 0, "9s") == Action("play", cards=("9S",))
    assert KOIRA.typed(game, 0, "7♥️ 5h, 6H") == Action("play", cards=("5H", "6H", "7H"))
    for text in ("zz", "5H 7H", "2C", "11H", ""):
        assert isinstance(KOIRA.typed(game, 0, text), str)
    assert "#41, #42" in KOIRA.typed_choose_text([game, replace(game, id=42)])


def test_new_game_options_and_lobby_texts() -> None:
    assert KOIRA.new_game_options([]) == {}
    assert KOIRA.new_game_options(["tie_split", "3"]) == {"tie_split": True, "min_sequence": 3}
    refusal = KOIRA.new_game_options(["<b>x</b>"])
    assert isinstance(refusal, str) and "<b>x" not in refusal
    GAME.player_limits(KOIRA.new_game_options(["pickup_single", "trump_ends_trick"]))
    game = replace(snapshot(dealt(HANDS), names=["<i>A</i>", "B", "C", "D"]), status="lobby")
    text = KOIRA.lobby_text(game, {1000})
    assert "&lt;i&gt;A&lt;/i&gt;" in text and "🔕" in text and "(from 3 to 8)" in text
    assert "⚠️" not in text and "wait" not in text  # a hint: they can play with 🎴
    assert "#41 started" in KOIRA.lobby_closed_text(replace(game, status="running"))
    assert "cancelled" in KOIRA.private_cancelled_text(replace(game, status="cancelled"),
                                                       reader=None)
    assert "/newgame koira" in KOIRA.lobby_expired_text(game)
    for spec in GAME.option_specs():
        for value in spec.values:
            assert KOIRA.option_label(game, spec, value)


def test_peek_alert_and_error_texts() -> None:
    big = [c for c in DECK if c not in ("KC", "KD")][:40]  # a long phase-2 hand
    state = phase2([big, ["KC"], ["KD"]], trump="S")
    alert = KOIRA.peek_alert(snapshot(state), 0)
    assert alert is not None and len(alert) <= 200
    assert KOIRA.error_text("does_not_beat", {}) and KOIRA.error_text("stale", {}) is None
    assert "3" in (KOIRA.error_text("bad_sequence", {"min": 3}) or "")


def test_private_closed_text_names_the_phase() -> None:
    assert "phase 1 is over" in KOIRA.private_closed_text(snapshot(dealt(HANDS)), 1)


@pytest.mark.parametrize("seed", [3, 11])
def test_a_note_per_move_carries_the_trick(registered, seed: int) -> None:
    """With "a note per move" (README, Message economy) a move inside a trick is a note
    carrying the trick so far and the mention; one that begins a trick heads the new
    table."""
    history = play_random(seed, 4)
    for state, events in history[1:]:
        rep = KOIRA.report(snapshot(state), [step(state, events)])
        if not rep.new_table and not base.is_over(snapshot(state)):
            assert any(line.startswith(("On the table:", "The trick is empty."))
                       for line in rep.lines), rep.lines
            assert rep.lines[-1].endswith("your turn.")


def test_a_replays_timeout_reads_as_coyotes() -> None:
    """A turn the computer played after a timeout is "Name: ⏰ timed out" in a trick's line,
    as in Coyote's replay; a removal for timeouts is the group's sentence. (Koira's replay
    once gave the group's whole "ran out of time: the computer plays this turn" sentence
    inside a trick's line.)"""
    game = snapshot(phase2([["5H", "6H"], ["2C", "3C"], ["4D", "AD"]], trump="S"))
    timed_out = {"type": "turn_timed_out", "seat": 1}
    removed = {"type": "turn_timed_out", "seat": 1, "removed": True}
    with use_language("en"):
        assert replay_part(game, timed_out, [timed_out]) == "\u2068Sato\u2069: ⏰ timed out"
        assert "removed" in (replay_part(game, removed, [removed]) or "")
