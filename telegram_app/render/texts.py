"""Longer fixed texts: welcome, help and the rules of each edition."""

from __future__ import annotations

from html import escape as _escape

from telegram_app.i18n import _


def escape(text: str) -> str:
    """Escape user-provided text for Telegram HTML."""
    return _escape(text, quote=False)


def welcome_text() -> str:
    """The private /start answer."""
    return _("👋 Hi! I run <b>Coyote</b> games in group chats.\n\n"
             "Add me to a group and send /newgame there. During a game I send you here the "
             "cards you can see (everyone's but your own) and your move buttons.\n"
             "/rules explains the game.")


def help_text() -> str:
    """The /help answer."""
    return _("<b>Coyote League</b>\n\n"
             "/newgame [classic|feathers|poker-deck] — open a lobby in this group\n"
             "/leave — quit the running game (you are placed last)\n"
             "/cancel — cancel the open game (its opener or an admin)\n"
             "/rules [edition] — how to play\n"
             "/settings, /pause, /resume — for the group's admins\n"
             "/standings [last|season] — this group's league table\n"
             "/rating, /profile — Elo (yours, or reply to a player's message)\n"
             "/history, /replay ID — the last games here, and one game move by move\n"
             "/top — the overall leaderboard\n"
             "/help — this message\n\n"
             "Start a private chat with me so I can show you the cards. In the group, the 👀 "
             "button shows them to you too.")


def rules_text(edition: str) -> str:
    """The rules of an edition, short enough for one message."""
    common = _("<b>Coyote</b> — everyone sees every card but their own.\n\n"
               "On your turn, either bid a number higher than the last bid (“the total of all "
               "cards is at least N”; the opening bid is 1 or more), or call <b>Coyote!</b> on "
               "the last bid. Then the cards are revealed and totalled: if the total is at least "
               "the bid, the caller loses; otherwise the bidder loses.\n\n")
    specific = {
        "classic": _("<b>Classic</b> (36 cards): 20, 15×2, 10×3, 5–1×4, 0×3, −5×2, −10 and four "
                     "specials. Scoring order: <b>?</b> turns up the top card of the draw pile; "
                     "<b>MAX→0</b> makes the highest positive card count 0; the numbers are "
                     "added; <b>×2</b> doubles the sum; <b>🌙 night</b> counts 0 and every card "
                     "is reshuffled afterwards. The loser loses one of 3 lives and starts the "
                     "next round (if they are out, the winner starts). The last player with "
                     "lives wins."),
        "feathers": _("<b>Feathers</b> (30 feathers): green 1–10 (two each), 15 and 20; red −5, "
                      "−5, −10; blue ?, MAX→0, MAX→−, ×2, 0. Order: ? turns up the top feather; "
                      "MAX→0 zeroes the highest green; MAX→− makes the highest remaining "
                      "green negative; ×2 doubles the green feathers still positive; the "
                      "blue 0 counts 0 and all feathers are reshuffled. The winner of a "
                      "showdown starts the next round. Three coyote coins and you are out."),
        "poker-deck": _("<b>Poker deck</b> (23 cards: A=1 to 5 of each suit, one J, Q, K): Q "
                        "becomes a random undealt card, K removes the highest card, J doubles "
                        "the total. If the total equals the bid, nobody is penalised. The "
                        "penalised player starts the next round; the player who takes the 4th "
                        "penalty card loses the game and everyone else wins. All cards are "
                        "reshuffled every round."),
    }
    return common + specific.get(edition, specific["classic"])
