"""🐺 Coyote! asks for a confirmation (its ``cc`` keyboard) unless the player turned that
off: the keyboards and the press, without a network."""

from __future__ import annotations

from dataclasses import replace

import pytest

from engine import Action
from engine.coyote import CoyoteGame
from league.store.errors import ServiceError
from league.store.snapshots import GameSnapshot, PlayerInfo
from telegram_app.callbacks import parse
from telegram_app.games.coyote.keyboards import confirm_rows, move_rows
from telegram_app.games.coyote.ui import UI
from telegram_app.games.registry import Press


def _game(confirm: bool, bids: list[list[int]] | None = None) -> GameSnapshot:
    state = CoyoteGame().new_state(3, 7)
    state["bids"] = [[(state["turn"] - 1) % 3, 5]] if bids is None else bids
    players = tuple(PlayerInfo(1000 + i, f"P{i}", i, False, True, None, None, None,
                               confirms_ending=confirm) for i in range(3))
    return GameSnapshot(1, -100, 0, "coyote", {"edition": "classic"}, "running", 12, state,
                        1000, 5, 6, players)


def _data(rows) -> list[tuple[str, str]]:
    return [(b.text, b.callback_data) for row in rows for b in row]


def test_coyote_asks_first_when_the_player_wants_it() -> None:
    asking = dict(_data(move_rows(_game(True))))
    assert asking["🐺 Coyote!"] == "cc:1:12"
    assert dict(_data(move_rows(_game(False))))["🐺 Coyote!"] == "c:1:12"
    assert parse("cc:1:12") == Press("cc", 1, (12,))


def test_the_confirmation_is_the_call_at_this_version_and_back_to_the_bids() -> None:
    game = _game(True)
    assert _data(confirm_rows(game)) == [("🐺 Yes, call Coyote!", "c:1:12"),
                                         ("↩️ Back", "m:1:12:6")]
    seat = game.state["turn"]
    shown = UI.press(game, Press("cc", 1, (12,)), seat, False)
    assert not isinstance(shown, Action) and _data(shown) == _data(confirm_rows(game))
    back = UI.press(game, Press("m", 1, (12, 6)), seat, False)
    assert _data(back) == _data(move_rows(game))  # the move keyboard as it was
    assert UI.press(game, Press("c", 1, (12,)), seat, False) == Action("call")
    assert UI.direct_action(Press("cc", 1, (12,))) is None  # (never a move by itself)


def test_a_confirmation_is_refused_as_the_other_keyboards_are() -> None:
    game = _game(True)
    seat = game.state["turn"]
    for press, who, code in ((Press("cc", 1, (11,)), seat, "stale"),
                             (Press("cc", 1, (12,)), None, "not_a_player"),
                             (Press("cc", 1, (12,)), (seat + 1) % 3, "not_your_turn")):
        with pytest.raises(ServiceError) as refused:
            UI.press(game, press, who, False)
        assert refused.value.code == code
    with pytest.raises(KeyError):  # no bid yet: nothing to call (forged data)
        UI.press(_game(True, bids=[]), Press("cc", 1, (12,)), seat, False)


def test_turned_off_since_the_button_was_drawn_it_calls_at_once() -> None:
    game = _game(True)
    seat = game.state["turn"]
    off = replace(game, players=tuple(replace(p, confirms_ending=False) for p in game.players))
    assert UI.press(off, Press("cc", 1, (12,)), seat, True) == Action("call")
