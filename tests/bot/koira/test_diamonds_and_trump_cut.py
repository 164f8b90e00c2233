"""A Japanese player's diamonds (「◆」, 「◇」) read as diamonds when typed, and a trick ended
early by a trump (R17 ``trump_ends_trick``) told as such, on real engine states."""

from __future__ import annotations

from engine.core import Action
from telegram_app.games.koira import notes
from telegram_app.games.koira.ui import KOIRA
from telegram_app.games.koira.words import typed_card
from telegram_app.i18n import n_
from tests.bot.koira.helpers import snapshot
from tests.engine.koira_helpers import phase2, play

CUT = ("🗑 The trump ends the trick early: its {n} card leaves the game ({name} played the "
       "trump).",
       "🗑 The trump ends the trick early: its {n} cards leave the game ({name} played the "
       "trump).")
COMPLETE = ("🗑 The trick is complete: its {n} card leaves the game ({name} played last).",
            "🗑 The trick is complete: its {n} cards leave the game ({name} played last).")


def line(forms: tuple[str, str], n: int, name: str) -> str:
    return n_(*forms, n).format(n=n, name=f"\u2068{name}\u2069")


def test_the_japanese_diamond_symbols_are_typed_diamonds() -> None:
    """Before the fix 「7◆」, 「◇Q」 (the black and white diamonds a Japanese phone offers for
    ダイヤ, U+25C6 and U+25C7) read as no card at all; now they are diamonds, suit last or
    first, with or without a variation selector, as ♦ and ♢ are."""
    for word, card in (("7◆", "7D"), ("10◇", "10D"), ("◆A", "AD"), ("◇Q", "QD"),
                       ("k◆\ufe0f", "KD"), ("◇\ufe0e2", "2D"), ("J◇\ufe0f", "JD")):
        assert typed_card(word) == card, word
    for word in ("◆", "◇", "◆◇", "◆x", "1◆"):
        assert typed_card(word) is None, word
    game = snapshot(phase2([["4D", "9S"], ["2C", "3C"], ["4H", "AD"]], trump="S"))
    assert KOIRA.typed(game, 0, "4◆") == Action("play", cards=("4D",))
    assert KOIRA.typed(game, 0, "◇4") == Action("play", cards=("4D",))


def test_a_trump_that_ends_the_trick_early_is_told_so() -> None:
    """R17 ``trump_ends_trick``, 4 players: Kim leads 8♣️ and Sato cuts with the trump 3♠️, 2
    of the 4 cards. Before the fix the group read "🗑 The trick is complete: its 2 cards
    leave the game (Sato played last).", a trick of 2 cards called complete at 4 with no
    word of the trump; now the note says the trump ended the trick early. The quiet group's
    table, which opens with the move that ended the last trick, says the same."""
    state = phase2([["5C", "2D"], ["3S", "KH"], ["9H", "4C"], ["6H", "7D"]], trump="S",
                   turn=1, trick=[(0, ["8C"])], need=4, trump_ends_trick=True)
    state, events = play(state, 1, "3S")
    game = snapshot(state)
    said = "\n".join(notes.step_lines(game, events))
    assert line(CUT, 2, "Sato") in said, said
    assert line(COMPLETE, 2, "Sato") not in said, said
    table = KOIRA.table_text(game, moves=[events])
    assert line(CUT, 2, "Sato") in table, table


def test_a_trump_that_completes_the_count_is_a_complete_trick() -> None:
    """R9 with R17: a trump that is also the card that brings the trick to its count ends it
    no earlier than the count: the note stays "The trick is complete"."""
    state = phase2([["5C", "2D"], ["3S", "KH"], ["9H", "4C"]], trump="S", turn=1,
                   trick=[(0, ["8C"]), (2, ["10C"])], need=3, trump_ends_trick=True)
    state, events = play(state, 1, "3S")
    said = "\n".join(notes.step_lines(snapshot(state), events))
    assert line(COMPLETE, 3, "Sato") in said, said
    assert line(CUT, 3, "Sato") not in said, said
