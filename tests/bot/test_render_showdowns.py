"""Showdown, game-over and rules texts of each Coyote edition."""

from __future__ import annotations

from engine.core import Action
from engine.coyote import CoyoteGame
from league.store.snapshots import GameSnapshot, PlayerInfo
from telegram_app.games.coyote import notes
from telegram_app.games.coyote.showdown import showdown_summary, showdown_text
from tests.bot.render_helpers import _snapshot
from tests.fakebot import parse_html


def test_batched_showdown_line_tells_two_lives_and_knock_out() -> None:
    state = CoyoteGame().new_state(4, 7)
    state["lives"] = [0, 3, 3, 3]
    game = _snapshot(state, {"edition": "classic"})
    line = showdown_summary(game, {"caller": 1, "bidder": 0, "bid": 3, "total": 2,
                                   "loser": 0, "lives_lost": 2})
    assert "two lives" in line and "out of the game" in line


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


def _feathers_table(**changes: object) -> dict:
    """A feathers round of three: ×2, −10 and MAX→0 in the hands, 20 on the draw pile."""
    from engine.coyote import get_edition

    state = CoyoteGame().new_state(3, 7, {"edition": "feathers"})
    deck = list(get_edition("feathers").deck)
    for card in ("x2", "-10", "max0", "20"):
        deck.remove(card)
    state.update(hands=["x2", "-10", "max0"], draw=["20", *deck], discard=[], **changes)
    return state


def test_showdown_text_per_edition() -> None:
    """Feathers' ×2 doubles only the green feathers; totals use a true minus sign; effects are
    not nested in parentheses; a doubled call says why it costs two lives."""

    game_rules = CoyoteGame()
    state = _feathers_table(turn=1, bids=[[0, 5]])
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


def test_a_japanese_showdown_and_replay_write_japanese_punctuation() -> None:
    """In Japanese a showdown's card lines and a replay's bid lines read 「名前：カード（…）」,
    as the translated lines beside them do ("{name}: {card} (swapped away…)" →
    「{name}：{card}（交換済み…）」). Before the fix they were built in code, 「P0: ×2 (…)」
    and 「P0: 5」, with an ASCII colon and brackets among full-width ones; a replay's
    total read 「合計 -10」 with a hyphen where every other number has a true minus."""
    from telegram_app.games.coyote.replay import replay_lines
    from telegram_app.i18n import use_language

    rules = CoyoteGame()
    state = _feathers_table(turn=0, bids=[])
    players = tuple(PlayerInfo(1000 + i, f"P{i}", i, False, 3, None, None, None)
                    for i in range(3))
    log = []
    for seat, action in [(0, Action("bid", 5)), (1, Action("call"))]:
        state, events = rules.apply(state, seat, action)
        log.append([{"type": e.type, **e.data} for e in events])
    game = GameSnapshot(1, -100, 0, "coyote", {"edition": "feathers"}, "running", 12, state,
                        1000, 5, 6, players)
    showdown = next(e for step in log for e in step if e["type"] == "showdown")
    isolates = str.maketrans("", "", "\u2068\u2069")  # (around each name)
    with use_language("ja"):
        text = showdown_text(game, showdown).translate(isolates)
        lines = [line.translate(isolates) for line in replay_lines(game, log)]
    cards = [line for line in text.splitlines() if line.startswith("P")]
    assert len(cards) == 3 and all(line.startswith(("P0：", "P1：", "P2：")) for line in cards)
    assert "P0：<b>×2</b>（" in text, text
    assert not any(mark in text for mark in (": ", " (", ", ")), text
    assert "P0：5" in lines, lines
    assert any("−10" in line for line in lines) and not any("-10" in line for line in lines), \
        lines
