"""``/rules tournament``: how a tournament runs (league/tournaments/ has the rules: seating in
``swiss.py``, scoring and the deadline in ``rounds.py``), short, in the reader's language."""

from __future__ import annotations

from telegram_app.games.registry import kinds
from telegram_app.i18n import _, join_list


def rules_text() -> str:
    """The rules of a tournament: opening and joining, seating, scoring with an example, byes,
    tie-breaks, the deadline, no-shows and late joining."""
    commands = join_list(f"/tournament {kind}" for kind in kinds())
    return "\n\n".join([
        _("🏆 <b>Tournaments</b>\nA chat admin opens one with {commands} (with the options "
          "/newgame takes) and sets the rounds (3–9), how long a round may last and the table "
          "size; everyone joins with ✋ on its message. Each round seats every player at a "
          "table, and the tables play ordinary games side by side in the group.").format(
            commands=commands),
        _("<b>Points.</b> At a table of n players you score (players who finished below you "
          "+ ½ × players sharing your place) ÷ (n − 1): the winner 1, the last 0. At a table "
          "of 4 the places score 1, ⅔, ⅓ and 0; a table's points always add up to n ÷ 2."),
        _("<b>Seating.</b> Swiss: by points, then Elo, the leaders together; tables as equal "
          "in size as the game allows, the same opponents again only where it cannot be "
          "helped. Who sits out a round gets a bye worth ½ point, and nobody sits out "
          "twice."),
        _("<b>Standings.</b> Points, then Buchholz (the sum of the points of the opponents "
          "you sat with), then Elo."),
        _("<b>Deadline.</b> A round lasts up to 1 hour, 1 day or 1 week (the turns' pace "
          "follows); then the computer finishes the tables still playing, for everyone."),
        _("<b>No-shows.</b> A game in which you made no move of your own scores 0; after two "
          "such games you are withdrawn and win no medal (you may join again while joining is "
          "open)."),
        _("<b>Late joining.</b> Until half the rounds have started, with a bye's ½ point for "
          "each round missed."),
    ])
