"""Koira's private keyboard and its callback data: only legal plays offered, selections in
the data, forged and stale presses decoded to nothing."""

from __future__ import annotations

import pytest

from engine.core import Action
from telegram_app.games.koira import keyboards
from telegram_app.games.koira.keyboards import (
    ButtonError,
    KoiraCallback,
    Selection,
    action_of,
    decode,
    mask_of,
    move_rows,
    parse,
)
from telegram_app.games.koira.words import card_label
from tests.bot.koira.helpers import GAME, apply, dealt, play_random, snapshot
from tests.engine.koira_helpers import phase2


def buttons(game, seat, selection=0):
    return [(b.text, b.callback_data) for row in move_rows(game, seat, selection) for b in row]


def test_phase_1_one_tap_per_card_and_the_stock() -> None:
    state = dealt([["9C", "KD", "4S"], ["KH", "3C", "7D"], ["QS", "5H", "5D"]])
    game = snapshot(state)
    shown = buttons(game, 0)
    assert [t for t, _ in shown] == ["4♠️", "K♦️", "9♣️", "🂠 Turn up the stock"]
    for _text, data in shown:
        action = action_of(data, game, 0)
        assert action in GAME.legal_actions(state, 0)
    assert action_of(shown[1][1], game, 0) == Action("play", cards=("KD",))
    assert action_of(shown[3][1], game, 0) == Action("stock")
    assert move_rows(game, 1) == []  # not their turn: nothing to press
    assert keyboards.private_keyboard(game, 1) is None


def test_no_stock_button_once_the_stock_holds_one_card() -> None:
    state = dealt([["9C", "KD", "4S"], ["KH", "3C", "7D"], ["QS", "5H", "5D"]])
    state["stock"] = state["stock"][:1]  # the last stock card is never played blind
    game = snapshot(state)
    assert all("stock" not in t for t, _ in buttons(game, 0))
    with pytest.raises(ButtonError):
        decode(KoiraCallback("w", game.id, game.version).encode(), game, 0)


def test_phase_2_sequence_by_selection_then_play() -> None:
    state = phase2([["5H", "6H", "7H", "9S"], ["2C", "3C"], ["4D", "AD"]], trump="S")
    game = snapshot(state)
    hand = GAME.view(state, 0)["hand"]
    assert hand == ["9S", "5H", "6H", "7H"]
    shown = dict(buttons(game, 0))
    # 9S starts no sequence: one tap plays it; 5H and 6H start one: a tap selects
    assert action_of(shown["9♠️"], game, 0) == Action("play", cards=("9S",))
    assert "5♥️ +" in shown and "6♥️ +" in shown
    assert action_of(shown["7♥️"], game, 0) == Action("play", cards=("7H",))
    picked = decode(shown["5♥️ +"], game, 0)
    assert picked == Selection(mask_of(hand, ["5H"]))
    after = dict(buttons(game, 0, picked.mask))
    assert "✅ 5♥️" in after
    assert after["▶️ Play 5♥️"] == KoiraCallback("y", 41, 7, picked.mask).encode()
    more = decode(after["6♥️"], game, 0)
    more = decode(dict(buttons(game, 0, more.mask))["7♥️"], game, 0)
    final = dict(buttons(game, 0, more.mask))
    assert {"✅ 5♥️", "✅ 6♥️", "✅ 7♥️", "✖️ Clear"} <= set(final)
    action = decode(final["▶️ Play 5♥️ 6♥️ 7♥️"], game, 0)
    assert action == Action("play", cards=("5H", "6H", "7H"))
    GAME.apply(state, 0, action)  # the engine takes it
    assert decode(final["✖️ Clear"], game, 0) == Selection(0)


def test_a_selection_that_is_no_legal_play_has_no_play_button() -> None:
    state = phase2([["5H", "6H", "7H", "9S"], ["2C", "3C"], ["4D", "AD"]], trump="S")
    game = snapshot(state)
    hand = GAME.view(state, 0)["hand"]
    gap = mask_of(hand, ["5H", "7H"])
    assert not any(t.startswith("▶️") for t, _ in buttons(game, 0, gap))
    with pytest.raises(ButtonError):
        decode(KoiraCallback("y", 41, 7, gap).encode(), game, 0)


def test_beating_offers_only_cards_that_beat_and_the_pick_up() -> None:
    # seat 1 led 6♣, seat 2 beat it with 9♣; seat 0 must beat 9♣ (R10) or pick up 6♣ (R11)
    state = phase2([["5C", "7C", "10C", "2H", "KS"], ["4D"], ["AD", "3D"]], trump="H",
                   turn=0, trick=[(1, ["6C"]), (2, ["9C"])], need=4)
    game = snapshot(state)
    shown = dict(buttons(game, 0))
    assert set(shown) == {"10♣️", "2♥️", "📥 Pick up 6♣️"}
    assert decode(shown["📥 Pick up 6♣️"], game, 0) == Action("pickup")
    for card in ("5C", "7C", "KS"):  # a forged play of a card that does not beat
        hand = GAME.view(state, 0)["hand"]
        with pytest.raises(ButtonError) as err:
            decode(KoiraCallback("y", 41, 7, mask_of(hand, [card])).encode(), game, 0)
        assert err.value.code == "bad_button"


def test_cannot_beat_leaves_only_the_pick_up() -> None:
    state = phase2([["2C", "3D"], ["9C"], ["AD"]], trump="H", turn=0,
                   trick=[(2, ["KC"])], need=3)
    game = snapshot(state)
    assert [t for t, _ in buttons(game, 0)] == ["📥 Pick up K♣️"]


def test_pick_up_single_shows_the_lowest_card_only() -> None:
    state = phase2([["2C"], ["9C"], ["AD"]], trump="H", turn=0,
                   trick=[(2, ["3D", "4D"])], need=4, pickup_single=True)
    state["options"]["pickup_single"] = True
    assert "📥 Pick up 3♦️" in dict(buttons(snapshot(state), 0))


@pytest.mark.parametrize("data", [None, "", "k", "ky", "ky:41:7", "kw:41:7:1", "kh:41:7:0",
                                  "kq:41:7:1", "ky:41:7:x", "ky:-41:7:1", "ky:41:7:1:2:3",
                                  "ky:41:7:" + "9" * 9, "ky:41:7:1:0", "b:41:7:1", "ky:41:7:1\n",
                                  "KY:41:7:1", "ky: 41:7:1"])
def test_malformed_data_is_refused(data) -> None:
    assert parse(data) is None
    state = dealt([["9C", "KD", "4S"], ["KH", "3C", "7D"], ["QS", "5H", "5D"]])
    with pytest.raises(ButtonError) as err:
        decode(data, snapshot(state), 0)
    assert err.value.code == "bad_button"


def test_forged_and_stale_presses_decode_to_nothing() -> None:
    state = dealt([["9C", "KD", "4S"], ["KH", "3C", "7D"], ["QS", "5H", "5D"]])
    game = snapshot(state)

    def code(data: str, seat: int = 0, g=game) -> str:
        assert action_of(data, g, seat) is None
        with pytest.raises(ButtonError) as err:
            decode(data, g, seat)
        return err.value.code

    assert code("ky:42:7:1") == "bad_button"  # another game
    assert code("ky:41:6:1") == "stale"  # drawn before the last move
    assert code("ky:41:7:8") == "bad_button"  # past the hand (3 cards)
    assert code("ky:41:7:3") == "bad_button"  # two cards in phase 1 (R19)
    assert code("ky:41:7:0") == "bad_button"  # nothing
    assert code("kt:41:7:1") == "bad_button"  # no selection in phase 1
    assert code("kh:41:7") == "bad_button"  # no pick-up in phase 1
    assert code("ky:41:7:1", seat=1) == "not_your_turn"
    over = snapshot(play_random(5, 3)[-1][0])
    assert code(f"ky:41:{over.version}:1", g=over) == "stale"


def test_every_button_of_random_games_is_legal_and_every_play_is_reachable() -> None:
    for seed in range(6):
        for state, _events in play_random(seed, 3 + seed % 4):
            seat = GAME.current_seat(state)
            if seat is None:
                continue
            game = snapshot(state)
            legal = GAME.legal_actions(state, seat)
            hand = GAME.view(state, seat)["hand"]
            for _text, data in buttons(game, seat):
                assert len(data.encode()) <= 64
                decoded = decode(data, game, seat)
                assert isinstance(decoded, Selection) or decoded in legal
            at_once = {decode(d, game, seat) for _t, d in buttons(game, seat)}
            for action in legal:
                if action.kind != "play" or action in at_once:
                    continue
                mask = mask_of(hand, action.cards)
                play = KoiraCallback("y", game.id, game.version, mask).encode()
                assert play in {d for _t, d in buttons(game, seat, mask)}, (action, hand)


def test_callback_data_fits_64_bytes_at_the_largest_numbers() -> None:
    data = KoiraCallback("t", 10**12 - 1, 10**12 - 1, 2**52 - 1).encode()
    assert len(data.encode()) <= 64
    assert parse(data) == KoiraCallback("t", 10**12 - 1, 10**12 - 1, 2**52 - 1)
    assert all(len(str(n)) <= 12 for n in KoiraCallback("t", 1, 1, 2**52 - 1).numbers)
    assert parse("kt:1:1:0:0") is None and parse("kt:1:1:67108864") is None


def test_no_button_shows_another_players_card() -> None:
    for seed in range(4):
        for state, _ in play_random(seed, 4):
            seat = GAME.current_seat(state)
            if seat is None:
                continue
            own = {card_label(c) for c in state["hands"][seat]}
            table = {card_label(c) for p in state["trick"] for c in p[1]}
            for text, data in buttons(snapshot(state), seat):
                label = text.removeprefix(keyboards.TICK).removesuffix(keyboards.SELECTS)
                if data.startswith(("ky", "kt")) and not label.startswith(("▶️", "✖️")):
                    assert label in own
                elif data.startswith("kh"):  # the pick-up names cards on the table
                    assert set(label.split(" ")[3:]) <= table


def test_a_played_press_applies_once() -> None:
    state = dealt([["9C", "KD", "4S"], ["KH", "3C", "7D"], ["QS", "5H", "5D"]])
    game = snapshot(state)
    data = dict(buttons(game, 0))["K♦️"]
    new, _ = apply(state, 0, action_of(data, game, 0))
    moved = snapshot(new, version=game.version + 1)
    with pytest.raises(ButtonError) as err:
        decode(data, moved, 0)
    assert err.value.code == "stale"
