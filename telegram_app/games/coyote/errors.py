"""Alerts for Coyote's ``RuleError`` codes (engine/coyote) and its typed-bid refusal."""

from __future__ import annotations

from typing import Any

from engine.coyote.editions import MAX_BID
from telegram_app.i18n import _


def error_text(code: str, detail: dict[str, Any]) -> str | None:
    """The alert (≤ 200 characters) for one of Coyote's refusal codes, ``None`` for others."""
    if code == "bid_too_low" and detail.get("min_bid", 0) > MAX_BID:
        # (after the top bid no higher one exists to ask for: only a Coyote call is left)
        code, detail = "bid_too_high", {"max": MAX_BID}
    messages = {
        "bad_player_count": _("This edition is for {min}–{max} players.").format(
            min=detail.get("min", ""), max=detail.get("max", "")),
        "bad_lives": _("This edition allows {min}–{max} lives.").format(
            min=detail.get("min", ""), max=detail.get("max", "")),
        "unknown_edition": _("Unknown edition."),
        "lives_need_fewer_players": _(
            "{lives} lives are only for tables of up to {max} players: change the lives "
            "option, then start.").format(lives=detail.get("lives", ""),
                                          max=detail.get("max", "")),
        "typed_too_early": _("That number was sent before this round's cards reached you, "
                             "so I did not bid it. Type it again if you still mean it."),
        "special_not_available": _("That special action is not available."),
        "mask_used": _("You have already used your mask this round."),
        "draw1_used": _("Draw 1 has already been used this round."),
        "bad_target": _("Choose another player."),
        "pass_blocked": _("You cannot pass right after a pass."),
        "nothing_to_change": _("There is no bid of another player to change."),
        "must_answer_change": _("First raise your bid or call Coyote on the bid before it."),
        "coin_used": _("That coin has already been used this round."),
        "one_coin_per_turn": _("One coin per turn."),
        "coins_two_players": _("Coins cannot be used once only two players remain."),
        "guess_not_allowed": _("Guessing now would leave too few players in the round."),
        "no_card_to_draw": _("There is no card left to draw."),
        "must_bid": _("You must bid now (no Coyote call this turn)."),
        "own_bid": _("You cannot call Coyote on your own bid."),
        "bid_too_high": _("I take bids up to {max}; call Coyote instead.").format(
            max=detail.get("max", "")),
        "bid_too_low": _("Your bid must be at least {min_bid}.").format(
            min_bid=detail.get("min_bid", "")),
        "no_bid_to_call": _("Nobody has bid yet: the first player must bid."),    }
    return messages.get(code)
