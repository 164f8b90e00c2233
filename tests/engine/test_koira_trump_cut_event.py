"""The engine's ``trick_over`` says when a trump ended the trick early (R17), so the texts can
tell why a trick ended before its count (R9)."""

from __future__ import annotations

from tests.engine.koira_helpers import phase2, play


def _over(events: list[dict]) -> dict:
    return next(e for e in events if e["type"] == "trick_over")


def test_a_trump_cut_before_the_count_is_marked() -> None:
    """R17 ``trump_ends_trick``: 8♣️ led, the trump 3♠️ ends the trick at 2 of its 4 cards.
    Before the fix the ``trick_over`` event was the same as a trick complete at its count
    (``{phase, trick, seat, cards}``), so nothing could tell why it ended; now it carries
    ``trump_cut: True``. The state keeps its shape (no new key)."""
    state = phase2([["5C", "2D"], ["3S", "KH"], ["9H", "4C"], ["6H", "7D"]], trump="S",
                   turn=1, trick=[(0, ["8C"])], need=4, trump_ends_trick=True)
    new, events = play(state, 1, "3S")
    assert _over(events) == {"type": "trick_over", "phase": 2, "trick": 20, "seat": 1,
                             "cards": ["8C", "3S"], "trump_cut": True}
    assert set(new) == set(state)


def test_a_trick_complete_at_its_count_is_not_marked() -> None:
    """R9: a trick that reaches its count, by a plain card or by a trump that also cuts it
    (R17), or a trump-led trick, is complete as before: no ``trump_cut``."""
    opts = {"trump_ends_trick": True}
    state = phase2([["5C", "2D"], ["3S", "KH"], ["9H", "4C"]], trump="S", turn=1,
                   trick=[(0, ["8C"]), (2, ["10C"])], need=3, **opts)
    assert "trump_cut" not in _over(play(state, 1, "3S")[1])
    state = phase2([["5C", "2D"], ["JC", "KH"], ["9H", "4C"]], trump="S", turn=1,
                   trick=[(0, ["8C"]), (2, ["10C"])], need=3, **opts)
    assert "trump_cut" not in _over(play(state, 1, "JC")[1])
    state = phase2([["5C", "2D"], ["3S", "KH"], ["9H", "4C"]], trump="S", turn=1,
                   trick=[(0, ["8C"]), (2, ["10C"])], need=3)
    assert "trump_cut" not in _over(play(state, 1, "3S")[1])
