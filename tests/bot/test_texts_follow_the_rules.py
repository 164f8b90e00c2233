"""What players read about the play says what the rules say (``shared/rules/coyote.md``,
``shared/rules/koira.md``) and names things as the original texts do (``shared/seeds/``):
texts rendered from real engine states (fixed seeds), in every language the bot speaks."""

from __future__ import annotations

import pytest

from engine.core import Action
from engine.coyote import CoyoteGame
from telegram_app.games.coyote import screens
from telegram_app.games.coyote import table as coyote_table
from telegram_app.games.registry import ui_for
from telegram_app.i18n import _, use_language
from tests.bot.render_helpers import _snapshot
from tests.fakebot import parse_html

MASKS = {"edition": "classic", "specials": True}


def _masks_opening():
    """A classic game with masks, 4 seats, seed 7: nobody has bid, seat 1 opens."""
    state = CoyoteGame().new_state(4, 7, MASKS)
    assert state["turn"] == 1 and state["bids"] == []
    return _snapshot(state, MASKS)


def _change_on_the_second_bid():
    """3 seats, masks on: P0 bids 3, P1 bids 4, P2 uses Change on P1's bid. P1 must raise
    their bid or (coyote.md, Change: "per the Korean text, call Coyote on the bid before
    theirs") call Coyote on P0's 3."""
    rules = CoyoteGame()
    state = rules.new_state(3, 7, MASKS)
    state.update(turn=0, starter=0, bids=[])
    for seat, action in [(0, Action("bid", 3)), (1, Action("bid", 4)),
                         (2, Action("special", special="change"))]:
        state, _events = rules.apply(state, seat, action)
    view = rules.view(state, 1)
    assert view["turn"] == 1 and view["change"]["target"] == 1 and view["change_may_call"]
    assert Action("call") in rules.legal_actions(state, 1)
    return _snapshot(state, MASKS)


# --- Coyote: Change, as the Mini App tells it ------------------------------------------------

def test_mini_app_tells_a_change_target_they_may_call_coyote_on_the_bid_before() -> None:
    """coyote.md, masks: "Change — the previous player must replace their bid with a higher
    one (or, per the Korean text, call Coyote on the bid before theirs, if there is one)".
    The chat's private view says so ("raise your bid to 5 or more, or call Coyote on the bid
    before it") and the engine allows the call. Before the fix the Mini App's prompt to that
    same player said only "Your turn: raise your bid to 5 or more." (``coyote/table.py``
    ``_prompt`` ignores ``can_call`` for a Change target), while its page showed a 🐺 Coyote!
    button: the text told them they had to raise."""
    game = _change_on_the_second_bid()
    chat = parse_html(screens.private_text(game, 1))[0]
    assert "raise your bid to 5 or more, or call Coyote on the bid before it" in chat
    page = coyote_table.table(game, 1)
    assert "call Coyote" in page["prompt"], page["prompt"]


@pytest.mark.parametrize("language", ["ko", "ja", "es"])
def test_mini_app_change_prompt_matches_the_chats_in_every_language(language: str) -> None:
    """The same Change, in Korean, Japanese and Spanish: before the fix the Mini App's prompt
    was the translation of "raise your bid to {min} or more" alone, where the chat's private
    view (same language, same seat) offered the call on the bid before."""
    game = _change_on_the_second_bid()
    with use_language(language):
        prompt = coyote_table.table(game, 1)["prompt"]
        only_raise = _("Your turn: raise your bid to {min} or more.").format(min=5)
    assert prompt != only_raise, prompt


# --- Koira: /rules for the options asked about ------------------------------------------------

@pytest.mark.parametrize(("args", "says"), [
    (["3"], "a sequence (3 or more cards of one suit in a row)"),
    (["trump_ends_trick"], "sequences must start with a 2"),
    (["pickup_single"], "A pick-up takes only the lowest card of the lowest play."),
    (["tie_split"], "Ties are not replayed"),
])
def test_rules_koira_with_an_option_tell_that_option(args: list[str], says: str) -> None:
    """``/rules koira 3`` (or ``/rules 3``, ``/rules trump_ends_trick``: ``commands.rules``
    routes a word that ``/newgame koira`` takes to Koira's UI with that word as its
    arguments, as ``/rules feathers`` goes to Coyote's feathers rules). koira.md: the shortest
    sequence is an option ("*(option: minimum 3)*"), as are the three variants, and the rules
    text tells each when a game has it. Before the fix ``KoiraUI.rules_text`` ignored its
    arguments: "/rules koira 3" said "a sequence (2 or more cards of one suit in a row)", and
    "/rules trump_ends_trick" said nothing of the variant asked about."""
    text = parse_html(ui_for("koira").rules_text(args, None))[0]
    assert says in text, text[-700:]


def test_rules_koira_without_options_still_tell_the_defaults() -> None:
    """(The defaults stay: two-card sequences and no variant; guards the test above.)"""
    text = parse_html(ui_for("koira").rules_text([], None))[0]
    assert "a sequence (2 or more cards of one suit in a row)" in text
    assert "This game's options" not in text
