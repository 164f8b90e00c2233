"""What each reader's view and the table show: hidden cards, turns, Change, reminders, lobbies."""

from __future__ import annotations

from dataclasses import replace

import pytest

from engine.core import Action
from engine.coyote import CoyoteGame
from league.store.snapshots import GameSnapshot, PlayerInfo
from telegram_app.games.coyote import screens as render
from telegram_app.games.coyote.table import controls
from telegram_app.render.turns import reminder_text
from tests.bot.render_helpers import _game, _snapshot
from tests.fakebot import parse_html


def test_private_view_never_shows_own_card() -> None:
    hands = ["20", "5", "4", "3"]
    game = _game(4, hands=hands)
    assert "<b>20</b>" not in render.private_text(game, 0)
    assert "20" not in render.peek_alert(game, 0)
    for seat in (1, 2, 3):
        assert "<b>20</b>" in render.private_text(game, seat)


def test_public_table_shows_no_card() -> None:
    game = _game(4, hands=["night", "max0", "x2", "?"], bids=[[0, 3]])
    text = render.table_text(game)
    for label in ("night", "MAX", "×2", "?"):
        assert label not in text.replace("🎴 shows you the others' cards", "")
    # (the table's 🎴 shows them, in the group; no private chat is needed any more)
    assert "🎴 shows you the others' cards and your moves here" in text and "👀" not in text


def test_reminder_names_the_consequence() -> None:
    game = _game(3)
    player = game.at_seat(0)
    assert "computer plays" in reminder_text(game, player)
    removal = reminder_text(game, player, removal=True)
    assert "removed" in removal and "computer" not in removal


def test_no_coins_listed_with_two_players_left() -> None:
    options = {"edition": "feathers", "specials": True}
    state = CoyoteGame().new_state(3, 7, options)
    assert "Coins left" in render.table_text(_snapshot(state, options))
    state["lives"][2] = 0
    assert "Coins left" not in render.table_text(_snapshot(state, options))


def test_change_on_the_opening_bid_asks_only_for_a_raise() -> None:
    game = CoyoteGame()
    seed = next(s for s in range(100) if game.new_state(3, s, {"specials": True})["turn"] == 0)
    state = game.new_state(3, seed, {"specials": True})
    state, _ = game.apply(state, 0, Action("bid", 1))
    state, _ = game.apply(state, 1, Action("special", special="change"))
    snap = _snapshot(state, {"edition": "classic", "specials": True})
    for text in (render.private_text(snap, 0), render.table_text(snap)):
        assert "raise" in text and "bid before it" not in text


def test_change_text_follows_the_engines_call_rule() -> None:
    """The bid before the target's is their own (reachable with Reverse or Shot): they may
    only raise, and the group must not be told otherwise."""
    state = CoyoteGame().new_state(4, 7, {"specials": True})
    state.update(bids=[[2, 5], [0, 6], [0, 9]], change={"by": 1, "target": 0}, turn=0)
    snap = _snapshot(state, {"edition": "classic", "specials": True})
    assert "bid before it" not in render.table_text(snap)
    assert "bid before it" not in render.private_text(snap, 0)
    state["bids"] = [[0, 6], [2, 9]]
    state["change"] = {"by": 1, "target": 2}
    state["turn"] = 2
    assert "bid before it" in render.table_text(_snapshot(state, {"specials": True}))


def test_target_buttons_tell_alike_names_apart_and_show_no_card() -> None:
    """The Draw 1 / Shot keyboard may be drawn on the group's table, so it names targets only;
    players whose names look alike get their place in the table's list."""
    from telegram_app.games.coyote.keyboards import target_rows

    state = CoyoteGame().new_state(4, 7, {"edition": "classic", "specials": True})
    state["hands"] = ["5", "10", "x2", "-5"]
    names = ["Ann", "Ann ", "Bob", "Cat"]
    players = tuple(PlayerInfo(1000 + i, names[i], i, False, 3, None, None, None)
                    for i in range(4))
    game = GameSnapshot(1, -100, 0, "coyote", {"edition": "classic", "specials": True},
                        "running", 12, state, 1000, 5, 6, players)
    chooser = state["turn"]
    texts = [b.text.replace("\u2068", "").replace("\u2069", "")
             for row in target_rows(game, "draw1")[1:-1] for b in row]
    expected = {0: "Ann (1)", 1: "Ann (2)", 2: "Bob", 3: "Cat"}
    assert texts == [expected[s] for s in range(4) if s != chooser]


def test_a_knocked_out_players_last_private_message_says_so() -> None:
    game = _game(3)
    out = replace(game.players[1], playing=False)
    game = replace(game, players=(game.players[0], out, game.players[2]))
    text = parse_html(render.private_closed_text(game, 4, reader=out))[0]
    assert "you are out after round 4: the others play on in the group" in text, text
    still = parse_html(render.private_closed_text(game, 4, reader=game.players[0]))[0]
    assert "round 4 is over (see the group)" in still, still


def test_the_mini_apps_coyote_asks_only_those_who_want_it() -> None:
    game = _game(3, bids=[[0, 4]])
    game.state["turn"] = seat = 1  # (after seat 0's bid of 4: seat 1 may call)

    def call_option(g: GameSnapshot) -> dict:
        [buttons] = [c for c in controls(g, seat) if c["id"] == "call"]
        return buttons["options"][0]

    assert "confirm" not in call_option(game)  # (/confirm off)
    asked = replace(game, players=tuple(replace(p, confirms_ending=True) for p in game.players))
    assert call_option(asked)["confirm"]["label"] == "🐺 Yes, call Coyote!"


def test_the_view_shown_in_the_group_off_turn_holds_only_what_stays_current() -> None:
    """🎴 off-turn: the others' cards, not the bids or whose turn (they change with each
    move, and the table just above shows them; this view is edited only when the cards or
    the turn change), so it never reads stale under the live table."""
    game = _game(4)
    other = (game.state["turn"] + 1) % 4
    shown = render.private_text(game, other, in_group=True)
    assert "Waiting for" not in shown and "The table above shows the bids" in shown, shown
    assert "Waiting for" in render.private_text(game, other)  # (the private chat's: whole)


def test_the_view_shown_in_the_group_offers_no_typed_bid_and_no_group_heading() -> None:
    """🎴 shows a player's view in the group, where a typed number never reaches the bot
    (and the group's name is the chat itself); the private chat keeps both."""
    game = _game(4)
    seat = game.state["turn"]
    private = render.private_text(game, seat)
    shown = render.private_text(game, seat, in_group=True)
    assert "type any number here" in private, private
    assert "type" not in shown and "👥" not in shown, shown
    assert "<b>Your turn:</b> bid 1 or more." in shown, shown


@pytest.mark.parametrize(("edition", "command"), [("classic", "/newgame to"),
                                                  ("feathers", "/newgame feathers to"),
                                                  ("poker-deck", "/newgame poker-deck to")])
def test_an_expired_lobby_names_the_command_for_its_edition(edition: str, command: str) -> None:
    options = {"edition": edition}
    state = CoyoteGame().new_state(3, 7, options)
    assert command in render.lobby_expired_text(_snapshot(state, options))
