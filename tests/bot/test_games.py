"""The GameUI registry: verbs are unique, short and parsed for the game that owns them."""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest

from telegram_app.callbacks import ARITY, parse
from telegram_app.games.registry import (
    LEAGUE_VERBS,
    UIS,
    Press,
    kind_of_verb,
    register,
    ui_for,
    unregister,
)
from telegram_app.render.common import error_text


@dataclass
class _Verbs:  # only what register() reads
    kind: str
    verbs: dict[str, tuple[int, ...]] = field(default_factory=dict)


def test_coyote_is_registered_with_the_verbs_of_the_buttons_already_in_chats() -> None:
    assert ui_for("coyote") is UIS["coyote"]
    assert {v for v in "bcmkxqg"} <= set(ui_for("coyote").verbs)
    assert all(kind_of_verb(v) == "coyote" for v in "bcmkxqg")
    assert parse("b:12:7:5") == Press("b", 12, (7, 5)) and parse("b:12:7:5").version == 7
    assert set(LEAGUE_VERBS) <= set(ARITY)


@pytest.mark.parametrize("verbs", [{"b": (1,)}, {"j": (1,)}, {"toolong": (1,)},
                                   {"t1": (1,)}, {"tt": (4,)}, {"tt": ()}])
def test_a_taken_malformed_or_too_long_verb_is_refused(verbs) -> None:
    with pytest.raises(ValueError):
        register(_Verbs("toy", verbs))  # type: ignore[arg-type]
    assert "toy" not in UIS


def test_a_toy_verb_parses_while_registered_and_its_data_fit() -> None:
    register(_Verbs("toy", {"ty": (1, 3)}))  # type: ignore[arg-type]
    try:
        longest = Press("ty", 10**12 - 1, (10**12 - 1,) * 3)
        assert parse(longest.encode()) == longest and len(longest.encode()) <= 64
        assert parse("ty:5:1:2") is None  # two numbers: not an arity of "ty"
    finally:
        unregister("toy")
    assert parse("ty:5:1") is None and kind_of_verb("ty") is None


def test_the_game_changed_alert_and_game_codes_go_through_the_games() -> None:
    assert "changed" in error_text("game_changed")
    assert "own bid" in error_text("own_bid", kind="coyote")
    assert error_text("own_bid") == error_text("own_bid", kind="coyote")
