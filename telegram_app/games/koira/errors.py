"""Koira's refusals: the alerts for its RuleError codes (engine/koira)."""

from __future__ import annotations

from typing import Any

from telegram_app.i18n import _
from telegram_app.render import common

ERROR_CODES = ("one_card_only", "not_in_hand", "stock_too_small", "no_stock_in_phase_2",
               "no_pickup_in_phase_1", "nothing_to_pick_up", "bad_sequence", "does_not_beat",
               "bad_player_count", "bad_option", "bad_seat", "game_over", "not_a_player",
               "not_your_turn", "bad_action")
"""Every code ``engine.koira`` raises (``KoiraGame.apply``, ``new_game``, ``view``)."""


OWN_CODES = frozenset({"one_card_only", "not_in_hand", "stock_too_small", "no_stock_in_phase_2",
                       "no_pickup_in_phase_1", "nothing_to_pick_up", "bad_sequence",
                       "does_not_beat", "bad_player_count", "bad_seat", "typed_too_early"})
"""The codes with a Koira text of their own (the rest are worded by ``render.common``)."""


def error_text(code: str, detail: dict[str, Any] | None = None) -> str:
    """A short, polite alert (≤ 200 characters) for a refusal of a Koira game; codes that
    are not Koira's own go to ``render.common.error_text``."""
    detail = detail or {}
    messages = {
        "one_card_only": lambda: _("In phase 1 you play exactly one card."),
        "not_in_hand": lambda: _("That card is not in your hand."),
        "stock_too_small": lambda: _("The stock may be turned up only while it holds at "
                                     "least {min} cards.").format(min=detail.get("min", 2)),
        "no_stock_in_phase_2": lambda: _("The stock is only played in phase 1."),
        "no_pickup_in_phase_1": lambda: _("There is nothing to pick up in phase 1."),
        "nothing_to_pick_up": lambda: _("The trick is empty: lead a card or a sequence."),
        "bad_sequence": lambda: _sequence_text(detail),
        "does_not_beat": lambda: _("That does not beat the top of the trick: play a higher "
                                   "card of its suit or a trump, or pick up."),
        "bad_player_count": lambda: _("Koira is for {min}–{max} players.").format(
            min=detail.get("min", 3), max=detail.get("max", 8)),
        "bad_seat": lambda: _("You are not playing in this game."),
        # the league's code for a move typed before this phase's first private message
        "typed_too_early": lambda: _("That was typed before your new hand reached you, so I "
                                     "did not play it. Type it again if you still mean it."),
    }
    text = messages.get(code)
    return text() if text is not None else common.error_text(code, detail)


def _sequence_text(detail: dict[str, Any]) -> str:
    """What a sequence is; with ``trump_ends_trick`` (``from_two``, R17) also that it must
    start with a 2: a run from a 3 up is a sequence by the first sentence, yet refused."""
    text = _("A sequence is {min} or more cards of one suit in a row (aces high only).").format(
        min=detail.get("min", 2))
    if detail.get("from_two"):
        text += "\n" + _("A trump played on a trick not led with trump ends it at once; "
                         "sequences must start with a 2.")
    return text
