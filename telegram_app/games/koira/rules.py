"""Koira's fixed texts: ``/rules koira``, the refusals of its ``RuleError`` codes and its
lobby options (``shared/rules/koira.md``; option names from ``engine.koira.deal``)."""

from __future__ import annotations

from typing import Any

from telegram_app.i18n import _


def rules_text(options: dict[str, Any] | None = None) -> str:
    """``/rules koira``: the rules in one message, with this game's options (``options``;
    the defaults without)."""
    options = options or {}
    low = options.get("min_sequence", 2)
    parts = [
        _("<b>Koira</b> (3–8 players, 52 cards). There is no winner, only a loser: the last "
          "player holding cards is the <b>koira</b>. Ranks: A (high), K, Q, J, 10 … 2."),
        _("<b>Phase 1 — collecting.</b> Everyone holds 3 cards; the rest is the stock. Each "
          "player plays one card; suits do not matter and nobody must follow. The highest "
          "rank wins the trick. A tie at the top: only the tied players play again, until "
          "one card is highest (if they run out first, the cards are shuffled and shared "
          "among them). Instead of a card from your hand you may turn up the top of the "
          "stock and play it, while it holds at least 2 cards. After each trick everyone "
          "draws back up to 3, the winner first; the winner keeps the cards won face down "
          "and leads next. Whoever draws the last stock card shows it: its suit is "
          "<b>trump</b>."),
        _("<b>Phase 2 — shedding.</b> Everyone takes up the cards they won as their new "
          "hand; the winner of the last trick leads one card or a sequence ({n} or more "
          "cards of one suit in a row). Each next player must beat the top play: a higher "
          "card of its suit, or any trump on a card that is not trump; a play beats a "
          "sequence when its lowest card beats the sequence's highest. Who cannot or will "
          "not beat picks up the lowest play of the trick. A trick is complete when it "
          "holds as many cards as players were in the game when it began: its cards leave "
          "the game and the last player to play leads. Whoever gets rid of their last card "
          "is out and safe.").format(n=low),
    ]
    variants = []
    if options.get("tie_split"):
        variants.append(_("Ties are not replayed: each tied player takes back their card "
                          "and the other cards are shared out, the lowest to the last "
                          "player of the trick."))
    if options.get("trump_ends_trick"):
        variants.append(_("A trump played on a trick not led with trump ends it at once; "
                          "sequences must start with a 2."))
    if options.get("pickup_single"):
        variants.append(_("A pick-up takes only the lowest card of the lowest play."))
    if variants:
        # one option a line: sentences apart by a space read wrong in Japanese (「。 」)
        parts.append(_("<b>This game's options:</b> {options}").format(
            options="".join("\n• " + variant for variant in variants)))
    parts.append(_("Under 🎴 on the group's table, or in our private chat, tap a card to play "
                   "it; in phase 2 tap the cards of a sequence, then Play, or Pick up."))
    return "\n\n".join(parts)
