"""Rendering and callback data: limits, escaping and hidden cards, without a network."""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.core import Action
from engine.coyote import CoyoteGame
from league.store.snapshots import GameSnapshot, PlayerInfo
from telegram_app.callbacks import ARITY, Callback, parse
from telegram_app.games.coyote import notes
from telegram_app.games.coyote import screens as render
from telegram_app.games.coyote.keyboards import mod_of, move_rows, unmod
from telegram_app.games.coyote.showdown import showdown_summary, showdown_text
from telegram_app.games.coyote.table import controls
from telegram_app.keyboards import lobby_keyboard, table_keyboard
from telegram_app.render import common
from telegram_app.render.turns import reminder_text
from tests.fakebot import parse_html

HOSTILE_NAMES = ['<b>Ann</b> & "Co"', "דני הגדול", "x" * 64, "</a><a href='x'>", "&amp;lt;",
                 "مرحبا بك", "🙂" * 30, "Cat_*[x](y)`z`", "Bo\u202eb", "  "]


def _game(n: int, hands: list[str] | None = None, names: list[str] | None = None,
          bids: list[list[int]] | None = None) -> GameSnapshot:
    state = CoyoteGame().new_state(n, 7)
    if hands:
        state["hands"] = hands
    state["bids"] = bids or []
    names = names or [f"P{i}" for i in range(n)]
    players = tuple(PlayerInfo(1000 + i, names[i], i, False, 3, None, None, None)
                    for i in range(n))
    return GameSnapshot(1, -100, 0, "coyote", {"edition": "classic"}, "running", 12, state,
                        1000, 5, 6, players)


@pytest.mark.parametrize("data", ["", "j", "j:", "j:1:2", "b:1:2", "b:1:2:3:4:5", "c:1:2:3",
                                  "j:1:2:3", "z:1", "b:-1:2:3", "j:1" + "0" * 20, "b:1:2:x",
                                  "p:1\n", None])
def test_malformed_callback_data_is_refused(data: str | None) -> None:
    assert parse(data) is None


@given(st.sampled_from(sorted(ARITY)), st.integers(1, 10**12 - 1),
       st.lists(st.integers(0, 10**12 - 1), min_size=3, max_size=3), st.data())
def test_callback_data_round_trips_within_64_bytes(verb, game_id, numbers, data) -> None:
    arity = data.draw(st.sampled_from(ARITY[verb]))
    cb = Callback(verb, game_id, tuple(numbers[:arity]))
    encoded = cb.encode()
    assert len(encoded.encode()) <= 64
    assert parse(encoded) == cb


@pytest.mark.parametrize("special", ["double", "draw1", "shot"])
def test_bid_masks_round_trip(special: str) -> None:
    target = None if special == "double" else 9
    assert unmod(mod_of(special, target)) == (special, target)


def test_peek_alert_fits_at_ten_players_with_long_names() -> None:
    names = ["W" * 64 + str(i) for i in range(10)]
    game = _game(10, names=names)
    for seat in range(10):
        text = render.peek_alert(game, seat)
        assert len(text) <= 200
        assert text.count(":") == 1 + 9


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


@settings(max_examples=40, deadline=None)
@given(st.lists(st.sampled_from(HOSTILE_NAMES) | st.text(min_size=1, max_size=70),
                min_size=3, max_size=10))
def test_every_message_is_valid_telegram_html(names: list[str]) -> None:
    game = _game(len(names), names=names, bids=[[0, 4], [1, 9]])
    texts = [render.lobby_text(game, set()), render.table_text(game, mention=True),
             render.private_text(game, 0), notes.turn_line(game) or "",
             "\n".join(notes.step_lines(game, [{"type": "bid_placed", "seat": 1,
                                                      "amount": 9}]))]
    for text in texts:
        plain, _ = parse_html(text)
        assert 0 < len(plain) <= 4096


def test_keyboards_stay_within_limits() -> None:
    game = _game(10, bids=[[0, 999_999_990]])
    for markup in (table_keyboard(game), lobby_keyboard(game, "coyote_league_bot")):
        buttons = [b for row in markup.inline_keyboard for b in row]
        assert len(buttons) <= 100
        assert all(len(row) <= 8 for row in markup.inline_keyboard)
        assert all(len((b.callback_data or "").encode()) <= 64 for b in buttons)


def test_bids_stop_at_the_bots_maximum() -> None:
    from engine.coyote.editions import MAX_BID

    near = _game(4, bids=[[0, MAX_BID - 3]])
    data = [b.callback_data for row in move_rows(near) for b in row]
    bids = [int(d.split(":")[3]) for d in data if d.startswith("b:")]
    assert bids == [MAX_BID - 2, MAX_BID - 1, MAX_BID] and all(parse(d) for d in data)
    at_max = _game(4, bids=[[0, MAX_BID]])
    data = [b.callback_data for row in move_rows(at_max) for b in row]
    assert not [d for d in data if d.startswith(("b:", "m:"))]
    assert any(d.startswith("c:") for d in data)  # only Coyote! is left


def test_a_long_round_keeps_messages_within_telegrams_limit() -> None:
    names = ["W" * 64 + str(i) for i in range(10)]
    bids = [[i % 10, 10**9 + i] for i in range(500)]
    game = _game(10, names=names, bids=bids)
    texts = [render.private_text(game, seat) for seat in range(10)]
    for text in texts:
        assert len(text) <= 4096
        assert parse_html(text)  # still whole, valid HTML
        assert str(10**9 + 499) in text and str(10**9) not in text  # the latest bids only
    for text in (render.table_text(game, mention=True), render.table_text(game)):
        assert len(text) <= 4096 and parse_html(text)  # (the table lists no bids)


def test_reminder_names_the_consequence() -> None:
    game = _game(3)
    player = game.at_seat(0)
    assert "computer plays" in reminder_text(game, player)
    removal = reminder_text(game, player, removal=True)
    assert "removed" in removal and "computer" not in removal


def _snapshot(state: dict, options: dict) -> GameSnapshot:
    n = state["seats"]
    players = tuple(PlayerInfo(1000 + i, f"P{i}", i, False, 3, None, None, None)
                    for i in range(n))
    return GameSnapshot(1, -100, 0, "coyote", options, "running", 12, state, 1000, 5, 6,
                        players)


def test_batched_showdown_line_tells_two_lives_and_knock_out() -> None:
    state = CoyoteGame().new_state(4, 7)
    state["lives"] = [0, 3, 3, 3]
    game = _snapshot(state, {"edition": "classic"})
    line = showdown_summary(game, {"caller": 1, "bidder": 0, "bid": 3, "total": 2,
                                   "loser": 0, "lives_lost": 2})
    assert "two lives" in line and "out of the game" in line


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


def test_replay_shows_changed_bids_and_guesses() -> None:
    from telegram_app.render import league as league_text

    game = _snapshot(CoyoteGame().new_state(3, 7), {"edition": "feathers"})
    log = [[{"type": "bid_changed", "seat": 0, "amount": 4}],
           [{"type": "special_used", "seat": 1, "special": "guess", "guess": "5",
             "right": False, "card": "10"}]]
    text = league_text.replay_text(game, log)
    assert "P0\u2069: 4 (changed bid)" in text and "Guess 5 — wrong, it was 10" in text


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


def test_rules_tell_the_games_numbers_and_its_special_actions() -> None:
    from telegram_app.games.coyote.rules import rules_text

    for edition in ("classic", "feathers", "poker-deck", "chess"):
        parse_html(rules_text(edition))
        assert len(rules_text(edition)) < 4096
    classic = rules_text("classic")
    assert "Everyone has 3 lives" in classic and "the winner starts" in classic
    assert all(f"<b>{m}</b>" in classic for m in ("Pass", "Double", "Reverse", "Draw 1",
                                                    "Change", "Shot"))
    custom = rules_text("classic", {"lives": 5, "after_elimination": "next"})
    assert "Everyone has 5 lives" in custom and "the next player after them starts" in custom
    feathers = rules_text("feathers", {"lives": 4})
    assert "4 coyote coins and you are out" in feathers
    assert all(f"<b>{c}</b>" in feathers for c in ("Extra feather", "Reverse", "Skip", "Swap",
                                                     "Guess"))
    assert "none once only two players are left" in feathers
    poker = rules_text("poker-deck")
    assert "at least the bid" not in poker  # an equal total penalises nobody there
    assert "equal, nobody" in poker and "Masks" not in poker and "Coins" not in poker


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


def test_showdown_text_per_edition() -> None:
    """Feathers' ×2 doubles only the green feathers; totals use a true minus sign; effects are
    not nested in parentheses; a doubled call says why it costs two lives."""
    from engine.coyote import get_edition

    game_rules = CoyoteGame()
    state = game_rules.new_state(3, 7, {"edition": "feathers"})
    deck = list(get_edition("feathers").deck)
    for card in ("x2", "-10", "max0", "20"):
        deck.remove(card)
    state.update(hands=["x2", "-10", "max0"], draw=["20", *deck], discard=[], turn=1,
                 bids=[[0, 5]])
    after, events = game_rules.apply(state, 1, Action("call"))
    showdown = next(e.data for e in events if e.type == "showdown")
    assert showdown["total"] == -10
    players = tuple(PlayerInfo(1000 + i, f"P{i}", i, False, 3, None, None, None)
                    for i in range(3))
    game = GameSnapshot(1, -100, 0, "coyote", {"edition": "feathers"}, "running", 12, after,
                        1000, 5, 6, players)
    text = showdown_text(game, showdown)
    parse_html(text)
    assert "doubles the green feathers still positive" in text
    assert "Total: <b>−10</b>" in text and "((" not in text.replace(" ", "")
    assert "counts 0 (MAX→0)" not in text


def test_showdown_labels_extra_cards_and_change_says_the_double_is_void() -> None:
    from engine.coyote import get_edition

    rules = CoyoteGame()
    state = rules.new_state(3, 7, {"edition": "classic", "specials": True})
    deck = list(get_edition("classic").deck)
    for card in ("5", "10", "3", "?", "4"):
        deck.remove(card)
    state.update(hands=["5", "10", "3"], draw=["?", "4", *deck], discard=[], turn=0,
                 starter=0, bids=[])
    players = tuple(PlayerInfo(1000 + i, f"P{i}", i, False, 3, None, None, None)
                    for i in range(3))

    def snap(s):
        return GameSnapshot(1, -100, 0, "coyote", {"edition": "classic", "specials": True},
                            "running", 12, s, 1000, 5, 6, players)

    lines = []
    for seat, action in [(0, Action("bid", 3, special="draw1", target=1)),
                         (1, Action("bid", 4, special="double")),
                         (2, Action("special", special="change")),
                         (1, Action("bid", 30)), (2, Action("call"))]:
        state, events = rules.apply(state, seat, action)
        data = [e.to_json() for e in events]
        lines += notes.step_lines(snap(state), data)
        showdown = next((e for e in data if e["type"] == "showdown"), None)
    assert any("uses Change" in line and "The Double on the last bid no longer counts." in line
               for line in lines)
    text = showdown_text(snap(state), showdown)
    parse_html(text)
    assert "P1\u2069: <b>?</b> (Draw 1, turns up the top card)" in text
    assert "turned up: <b>4</b>" in text


def test_game_over_names_every_winner() -> None:
    state = CoyoteGame().new_state(3, 7, {"edition": "poker-deck"})
    state.update(over=True, out=[1], lives=[2, 0, 3])
    places = [1, 3, 1]  # (league.tables.places: the league stores them on the seats at the end)
    players = tuple(PlayerInfo(1000 + i, f"P{i}", i, False, 3, places[i], None, None)
                    for i in range(3))
    game = GameSnapshot(1, -100, 0, "coyote", {"edition": "poker-deck"}, "finished", 12,
                        state, 1000, 5, 6, players)
    text, _ = parse_html(notes.game_over_text(game))
    assert "🏆 Winners: \u2068P0\u2069, \u2068P2\u2069" in text
    assert text.count("🥇") == 2 and "🥉 \u2068P1" in text  # 1, 1, 3: competition ranks


def test_a_swapped_away_blue_zero_still_says_the_feathers_are_reshuffled() -> None:
    from engine.coyote import get_edition

    rules = CoyoteGame()
    options = {"edition": "feathers", "specials": True}
    state = rules.new_state(3, 7, options)
    deck = list(get_edition("feathers").deck)
    for card in ("0b", "5", "10", "3"):
        deck.remove(card)
    state.update(hands=["0b", "5", "10"], draw=["3", *deck], discard=[], turn=0, starter=0,
                 bids=[])
    for seat, action in [(0, Action("special", special="swap")), (0, Action("bid", 4)),
                         (1, Action("call"))]:
        state, events = rules.apply(state, seat, action)
    showdown = next(e.data for e in events if e.type == "showdown")
    players = tuple(PlayerInfo(1000 + i, f"P{i}", i, False, 3, None, None, None)
                    for i in range(3))
    game = GameSnapshot(1, -100, 0, "coyote", options, "running", 12, state, 1000, 5, 6,
                        players)
    text = showdown_text(game, showdown)
    parse_html(text)
    assert "(swapped away, does not count; all feathers are reshuffled after this round)" in text


def test_league_dates_read_in_each_languages_order() -> None:
    """A week's span in /standings and a game's day in /history: day, month and weekday in
    the order and with the units each language writes (not an English pattern's order)."""
    from datetime import UTC, datetime, timedelta

    from league.tables.queries import HistoryEntry, Standings
    from telegram_app.i18n import use_language
    from telegram_app.render import league as league_text

    start = datetime(2026, 11, 30, tzinfo=UTC)
    table = Standings("week", start, start + timedelta(days=7), [], {}, {}, "UTC")
    game = HistoryEntry(3, start, "coyote", {"edition": "classic"}, [(1, "Ann", None)])
    expected = {"ko": ("11월 30일 (월)", "12월 6일 (일)", "11월 30일"),
                "ja": ("11月30日(月)", "12月6日(日)", "11月30日")}
    for code, (first, last, day) in expected.items():
        with use_language(code):
            standings = league_text.standings_text(table)
            history = league_text.history_text([game])
        assert first in standings and last in standings, standings
        assert day in history, history


def test_the_leaderboard_counts_one_win_in_the_singular() -> None:
    from types import SimpleNamespace

    from telegram_app.i18n import use_language
    from telegram_app.render import league as league_text

    one = SimpleNamespace(rating=1540.0, games=12, wins=1)
    with use_language("en"):
        assert "12 games · 1 win" in league_text.top_text([(1, "Ann", one)])
        assert "1 wins" not in league_text.top_text([(1, "Ann", one)])
    with use_language("es"):
        assert "1 victoria" in league_text.top_text([(1, "Ann", one)])
        assert "1 victorias" not in league_text.top_text([(1, "Ann", one)])


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


def test_an_elo_change_reads_the_same_at_the_end_in_standings_and_history() -> None:
    """The difference of the ratings as shown, with a real minus sign, wherever a change is
    shown: 1500.6 (shown 1501) → 1507.2 (shown 1507) is +6 (not +6.7, nor +7 in one place
    and +6.6 in another); a loss reads −7."""
    from datetime import UTC, datetime, timedelta

    from league.store.snapshots import EloChange
    from league.tables.queries import HistoryEntry, Standings
    from league.tables.ratings import shown_change
    from league.tables.standings import StandingRow
    from telegram_app.i18n import use_language
    from telegram_app.render import league as league_text
    from telegram_app.render.results import elo_text

    start = datetime(2026, 11, 30, tzinfo=UTC)
    rows = [StandingRow(1, 1.0, 1, 1, 1507.2, shown_change(1500.6, 1507.2), 1),
            StandingRow(2, 0.0, 1, 0, 1493.4, shown_change(1500.4, 1493.4), 2)]
    table = Standings("week", start, start + timedelta(days=7), rows, {1: "Ann", 2: "Bob"},
                      {1: 3, 2: 3}, "UTC")
    game = HistoryEntry(3, start, "coyote", {"edition": "classic"},
                        [(1, "Ann", shown_change(1500.6, 1507.2)),
                         (2, "Bob", shown_change(1500.4, 1493.4))])
    with use_language("en"):
        standings = league_text.standings_text(table)
        history = league_text.history_text([game])
        end = elo_text(EloChange(1500.6, 1507.2, 3))
    assert "1507? (+6)" in standings and "1493? (\u22127)" in standings, standings
    assert "Ann\u2069 (+6)" in history and "Bob\u2069 (\u22127)" in history, history
    assert end.startswith("+6 (Elo 1507?)"), end


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


def test_fit_lines_counts_what_telegram_counts_and_keeps_the_chosen_end() -> None:
    """A message is measured after parsing (a mention's link and "&amp;" count as their
    text); what does not fit goes behind "…", never half a tag: the oldest lines, the
    newest, or the middle (the first line and the end stay)."""
    mention = '<a href="tg://user?id=123456789">A &amp; B</a>'
    assert common.visible_length(mention) == len("A & B")
    lines = [mention] * 500  # 3,000 characters as Telegram counts them, 23,000 of HTML
    assert common.fit_lines(lines) == "\n".join(lines)
    numbered = [f"<b>{i:03d}</b>" for i in range(100)]  # 3 characters each, 4 with "\n"
    assert common.fit_lines(numbered, 40).split("\n") == ["…", *numbered[-9:]]
    assert common.fit_lines(numbered, 40, keep="first").split("\n") == [*numbered[:9], "…"]
    ends = common.fit_lines(numbered, 40, keep="ends").split("\n")
    assert ends == [numbered[0], *numbered[1:5], "…", *numbered[-4:]]
    assert common.visible_length("\n".join(ends)) <= 40
