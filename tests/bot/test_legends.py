"""Words players can read without the rules at hand: a special Coyote card ("MAX→0", "?",
"×2", 🌙 …) and Koira's trump are explained where a message first shows them (a one-line
legend), in the Mini App too (a tooltip on the card, a legend under the table); a typed
Koira card the player does not hold is answered as such. No network."""

from __future__ import annotations

import pytest

from engine import GAMES
from engine.core import Action
from league.match.outcome import Step
from league.store.snapshots import GameSnapshot, PlayerInfo
from telegram_app.games.coyote import notes
from telegram_app.games.coyote import screens as coyote_screens
from telegram_app.games.coyote import table as coyote_table
from telegram_app.games.coyote.showdown import showdown_text
from telegram_app.games.coyote.words import SPECIAL_CARDS, legend_line
from telegram_app.games.koira import table as koira_table
from telegram_app.games.koira.ui import KOIRA
from telegram_app.i18n import use_language
from tests.bot.koira.helpers import dealt, play_random, snapshot
from tests.engine.koira_helpers import phase2

COYOTE = GAMES["coyote"]


def coyote(state: dict, edition: str) -> GameSnapshot:
    players = tuple(PlayerInfo(1000 + i, ["Ann", "Bob", "Cat"][i], i, False, 3, None, None,
                               None) for i in range(state["seats"]))
    return GameSnapshot(1, -100, 0, "coyote", {"edition": edition}, "running", 5, state,
                        1000, 5, 6, players)


def showdown_of(edition: str, special: bool) -> tuple[GameSnapshot, dict]:
    """A 3-player showdown of ``edition`` whose revealed cards hold a special card (or none
    at all, drawn ones included): a bid of 1, then Coyote."""
    for seed in range(2000):
        state, _ = COYOTE.new_game(3, seed, {"edition": edition})
        seat = state["turn"]
        state, _ = COYOTE.apply(state, seat, Action("bid", 1))
        state, events = COYOTE.apply(state, state["turn"], Action("call"))
        shown = next(e.to_json() for e in events if e.to_json()["type"] == "showdown")
        if any(c["card"] in SPECIAL_CARDS for c in shown["cards"]) == special:
            return coyote(state, edition), shown
    raise AssertionError("no such seed")


@pytest.mark.parametrize("edition", ["classic", "feathers", "poker-deck"])
def test_a_showdown_explains_each_special_card_once(edition: str) -> None:
    """On the card's own line (🌙 night, ×2: their note says it) or else in one legend line
    after the cards, before the total."""
    game, shown = showdown_of(edition, special=True)
    text = showdown_text(game, shown)
    legend = [line for line in text.split("\n") if line.startswith("ℹ️ ")]
    assert len(legend) <= 1, text
    specials = [c["card"] for c in shown["cards"] if c["card"] in SPECIAL_CARDS]
    for code in specials:
        explanation = coyote_table.special_text(code, edition)
        assert explanation is not None and text.count(explanation) == 1, (code, text)
        in_legend = f"<b>{coyote_table.card(code)['label']}</b>: {explanation}"
        assert in_legend in text or f"({explanation})" in text or f", {explanation}" in text
    if legend:
        lines = text.split("\n")
        assert lines.index(legend[0]) < next(i for i, line in enumerate(lines)
                                             if line.startswith("Total"))


def test_a_showdown_says_what_night_does_once() -> None:
    """🌙 night's note says what it does: no legend repeats it. MAX→0's note says only
    "counts 0", so the legend still explains that one."""
    from engine.coyote import get_edition

    deck = list(get_edition("classic").deck)
    for hands in (["night", "5", "10"], ["night", "max0", "10"]):
        state = COYOTE.new_state(3, 7)
        rest = list(deck)
        for card in hands:
            rest.remove(card)
        state.update(hands=hands, draw=rest, discard=[], turn=1, bids=[[0, 5]])
        after, events = COYOTE.apply(state, 1, Action("call"))
        shown = next(e.to_json() for e in events if e.to_json()["type"] == "showdown")
        text = showdown_text(coyote(after, "classic"), shown)
        night = "counts 0; all cards are reshuffled after this round"
        assert text.count(night) == 1, text
        assert "<b>🌙 night</b> (counts 0; all cards are reshuffled after this round)" in text
        legend = [line for line in text.split("\n") if line.startswith("ℹ️ ")]
        if "max0" in hands:
            assert legend == ["ℹ️ <b>MAX→0</b>: the highest positive card counts 0"], text
        else:
            assert legend == [], text


@pytest.mark.parametrize("edition", ["classic", "feathers", "poker-deck"])
def test_a_showdown_without_a_special_card_has_no_legend(edition: str) -> None:
    game, shown = showdown_of(edition, special=False)
    assert "ℹ️" not in showdown_text(game, shown)


def test_the_private_view_explains_the_special_cards_it_shows() -> None:
    """Each player sees the others' cards: the one who sees MAX→0 gets its legend; its holder,
    who does not see it, gets none (unless another special is in view)."""
    state = COYOTE.new_state(3, 7)
    state["hands"] = ["max0", "3", "4"]
    game = coyote(state, "classic")
    seen = coyote_screens.private_text(game, 1)
    assert "ℹ️ <b>MAX→0</b>: the highest positive card counts 0" in seen
    assert seen.count("ℹ️") == 1
    assert "ℹ️" not in coyote_screens.private_text(game, 0)
    state["hands"] = ["x2", "?", "night"]
    line = next(x for x in coyote_screens.private_text(coyote(state, "classic"), 0)
                .split("\n") if x.startswith("ℹ️"))
    assert line == ("ℹ️ <b>?</b>: turns up the top card of the draw pile, which counts "
                    "instead · <b>🌙 night</b>: counts 0; all cards are reshuffled after this "
                    "round")


@pytest.mark.parametrize("language", ["ko", "ja", "es"])
def test_the_legend_is_translated(language: str) -> None:
    with use_language(language):
        line = legend_line(["3", "max0", "x2", "max0"], "classic")
    assert line is not None and line.count("<b>") == 2
    assert "highest" not in line and "doubles" not in line


def test_legend_line_is_none_without_a_special_card() -> None:
    assert legend_line(["3", "-5", None, "10"], "classic") is None


def test_the_extra_feather_note_explains_a_special_feather() -> None:
    state = COYOTE.new_state(3, 7, {"edition": "feathers"})
    game = coyote(state, "feathers")
    event = {"type": "special_used", "seat": 0, "special": "extra", "card": "max-"}
    assert "ℹ️ <b>MAX→−</b>: the highest green feather left counts as negative" in \
        notes.step_lines(game, [event])[0]
    assert "ℹ️" not in notes.step_lines(game, [{**event, "card": "7"}])[0]


# --- Koira: the trump ---------------------------------------------------------------------

TRUMP_RULE = ("Trump: in phase 2 a trump beats any card of another suit; only a higher trump "
              "beats a trump.")


def test_the_private_view_says_what_a_trump_does_once_it_is_known() -> None:
    before = snapshot(dealt([["2S", "5H", "9C"], ["3S", "6H", "KD"], ["4S", "7H", "AC"]]))
    assert "ℹ️" not in KOIRA.private_text(before, 0)
    after = snapshot(phase2([["5H", "9S"], ["2C", "3C"], ["4D", "AD"]], trump="S"))
    lines = KOIRA.private_text(after, 0).split("\n")
    trump = next(i for i, line in enumerate(lines) if line.startswith("Trump: ♠️"))
    assert lines[trump + 1] == "ℹ️ " + TRUMP_RULE


def test_the_reveal_of_the_trump_says_what_a_trump_does() -> None:
    history = play_random(8, 4)
    for state, events in history:
        if any(e["type"] == "trump_revealed" for e in events):
            lines = KOIRA.report(snapshot(state), [Step(0, False, events, state)]).lines
            text = "\n".join(lines)
            assert "ℹ️ " + TRUMP_RULE in text
            assert text.index("Trump is") < text.index(TRUMP_RULE)
            return
    raise AssertionError("no trump revealed")


def test_the_mini_app_marks_and_explains_trumps() -> None:
    game = snapshot(phase2([["5H", "9S", "KS"], ["2C", "3C"], ["4D", "AD"]], trump="S"))
    page = koira_table.table(game, 0)
    assert page["legend"] == [{"label": "★", "text": TRUMP_RULE}]
    hand = {c["code"]: c for c in page["koira"]["hand"]}
    assert hand["9S"]["trump"] and hand["9S"]["title"] == TRUMP_RULE
    assert not hand["5H"]["trump"] and "title" not in hand["5H"]
    before = snapshot(dealt([["2S", "5H", "9C"], ["3S", "6H", "KD"], ["4S", "7H", "AC"]]))
    assert koira_table.table(before, 0)["legend"] == []
    with use_language("es"):
        assert koira_table.table(game, 0)["legend"][0]["text"].startswith("Triunfo: ")


# --- Koira: a typed card one does not hold -------------------------------------------------

@pytest.mark.parametrize(("typed", "answer"), [
    ("10♠", "You don't hold 10♠️."), ("10S", "You don't hold 10♠️."),
    ("9s 10s", "You don't hold 10♠️."), ("2c 3c", "You don't hold 2♣️ 3♣️."),
])
def test_a_typed_card_not_in_the_hand_is_named(typed: str, answer: str) -> None:
    game = snapshot(phase2([["5H", "6H", "7H", "9S"], ["2C", "3C"], ["4D", "AD"]], trump="S"))
    assert KOIRA.typed(game, 0, typed) == answer


def test_a_typed_word_that_is_no_card_gets_the_how_to_hint() -> None:
    game = snapshot(phase2([["5H", "6H", "7H", "9S"], ["2C", "3C"], ["4D", "AD"]], trump="S"))
    for text in ("ZZ", "11H", "10X", ""):
        assert KOIRA.typed(game, 0, text).startswith("Tap a card on the keyboard"), text
    # held, but no sequence: why, not how to type a card
    assert KOIRA.typed(game, 0, "5H 7H").startswith("A sequence is 2 or more cards")
    assert KOIRA.typed(game, 0, "9S") == Action("play", cards=("9S",))


@pytest.mark.parametrize(("language", "answer"), [
    ("ko", "내 손패에 없는 카드예요: 10♠️"), ("ja", "10♠️は手札にありません。"),
    ("es", "No tienes 10♠️ en la mano."),
])
def test_the_typed_card_answer_is_translated(language: str, answer: str) -> None:
    state = phase2([["5H", "6H", "7H", "9S"], ["2C", "3C"], ["4D", "AD"]], trump="S")
    game = snapshot(state, languages=[language, None, None])
    assert KOIRA.typed(game, 0, "10♠️") == answer
