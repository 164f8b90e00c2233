"""Coyote's rules as one message per edition (``shared/rules/coyote.md``)."""

from __future__ import annotations

from typing import Any

from engine.coyote import EDITIONS, get_edition
from telegram_app.i18n import _


def rules_text(edition: str, options: dict[str, Any] | None = None) -> str:
    """The rules of an edition (``shared/rules/coyote.md``), short enough for one message.

    ``options``: a game's options (``lives``, ``specials``, ``after_elimination``), so the text
    tells that game's numbers; without them, the edition's defaults. Unknown editions fall
    back to classic."""
    options = options or {}
    if edition not in EDITIONS:
        edition = "classic"
    lives = options.get("lives", get_edition(edition).lives)
    parts = [_("<b>Coyote</b> — everyone sees every card but their own.\n\n"
               "On your turn, either bid a number higher than the last bid (“the total of all "
               "cards is at least N”; the opening bid is 1 or more), or call <b>Coyote!</b> on "
               "the last bid. Then the cards are revealed and totalled.")]
    if edition == "classic":
        starts = (_("the next player after them starts")
                  if options.get("after_elimination") == "next" else _("the winner starts"))
        parts.append(_("<b>Classic</b> (36 cards): 20, 15×2, 10×3, 5–1×4, 0×3, −5×2, −10 and "
                       "four specials. Scoring order: <b>?</b> turns up the top card of the "
                       "draw pile; <b>MAX→0</b> makes the highest positive card count 0 (when "
                       "several tie for highest, only one of them counts 0); the numbers are "
                       "added; <b>×2</b> doubles the sum; <b>🌙 night</b> counts 0 "
                       "and every card is reshuffled afterwards.\n\n"
                       "If the total is at least the bid, the caller loses a life; otherwise "
                       "the bidder does. Everyone has {lives} lives. The loser starts the next "
                       "round (if they are out, {starts}). The last player with lives wins.")
                     .format(lives=lives, starts=starts))
        parts.append(_("<b>🎭 Masks</b> (when special actions are on): once per round, on your "
                       "turn. <b>Pass</b>: neither bid nor call (the next player may not Pass). "
                       "<b>Double</b>: bid; if the next player calls Coyote on it, the loser "
                       "loses two lives. <b>Reverse</b>: play changes direction, then bid or "
                       "call. <b>Draw 1</b>: bid, then give a player one more card from the "
                       "draw pile; it counts and everyone but them sees it (once per round in "
                       "all). <b>Change</b>: the last bidder must raise their bid (or call "
                       "Coyote on the bid before theirs), then play returns to you. "
                       "<b>Shot</b>: bid, then choose who plays next."))
    elif edition == "feathers":
        parts.append(_("<b>Feathers</b> (30 feathers): green 1–10 (two each), 15 and 20; red "
                       "−5, −5, −10; blue ?, MAX→0, MAX→−, ×2, 0. Order: ? turns up the top "
                       "feather; MAX→0 zeroes the highest green; MAX→− makes the highest "
                       "remaining green negative (on a tie, each takes only one); ×2 doubles "
                       "the green feathers still positive; the blue 0 counts 0 and all "
                       "feathers are reshuffled.\n\n"
                       "If the total is at least the bid, the caller takes a coyote coin (loses "
                       "a life); otherwise the bidder does. The winner of the showdown starts "
                       "the next round. {lives} coyote coins and you are out.")
                     .format(lives=lives))
        parts.append(_("<b>🪙 Coins</b> (when special actions are on): a shared pool, each coin "
                       "once per round, one per turn, none once only two players are left. "
                       "<b>Extra feather</b>: turn up the top feather in front of you (it "
                       "counts), then bid. <b>Reverse</b>: play changes direction, then bid. "
                       "<b>Skip</b>: pass your turn. <b>Swap</b>: your feather goes, the top of "
                       "the draw pile replaces it unseen, then bid. <b>Guess</b>: name your "
                       "feather; right, you are safe this round; wrong, you lose a life at once "
                       "and start the next round."))
    else:
        parts.append(_("<b>Poker deck</b> (23 cards: A=1 to 5 of each suit, one J, Q, K): Q "
                       "becomes a random undealt card (a J or K it turns up takes effect), "
                       "then K removes the highest card, then J doubles the total.\n\n"
                       "If the total is above the bid, the caller takes a penalty card; below "
                       "it, the bidder does; equal, nobody. The table counts each player's "
                       "penalty cards (🂠 1/{lives}: one taken). The penalised player starts "
                       "the next round (on a draw, the "
                       "caller); the player who takes the {lives}th penalty card loses the "
                       "game and everyone else wins. All cards are reshuffled every round.")
                     .format(lives=lives))
    return "\n\n".join(parts)
