"""The end of a game as drawn, without a network: the final message's place lines with each
rated player's Elo change (a real minus sign, ``±0``, "?" only while provisional, none for a
computer or an unrated human), and each player's last private message (their place, their
change; the place alone when not rated) in Coyote and Koira, in every language."""

from __future__ import annotations

from dataclasses import replace

import pytest

from engine import GAMES
from engine.coyote import CoyoteGame
from league.store.snapshots import EloChange, GameSnapshot, PlayerInfo
from telegram_app.games.registry import ui_for
from telegram_app.i18n import use_language
from telegram_app.render import results
from tests.fakebot import parse_html

BIDI = str.maketrans("", "", "\u2068\u2069")


def _plain(html: str) -> str:
    return parse_html(html)[0].translate(BIDI)


def _players(places: list[int], changes: list[EloChange | None], *, ai: int | None = None,
             languages: list[str | None] | None = None) -> tuple[PlayerInfo, ...]:
    names = ["Ann", "Bob", "Cat", "Dan", "Eve"]
    return tuple(
        PlayerInfo(None if i == ai else 1000 + i, names[i], i, i == ai, True, places[i],
                   500 + i, 3, (languages or [None] * len(places))[i],
                   rated=None if i == ai else changes[i] is not None,
                   elo_change=changes[i])
        for i in range(len(places)))


def _coyote(players: tuple[PlayerInfo, ...], status: str = "finished") -> GameSnapshot:
    state = CoyoteGame().new_state(len(players), 7)
    state.update(over=status == "finished")
    return GameSnapshot(3, -100, 0, "coyote", {"edition": "classic"}, status, 40, state,
                        1000, 5, 6, players)


def _koira(players: tuple[PlayerInfo, ...]) -> GameSnapshot:
    game = GAMES["koira"]
    state, _ = game.new_game(len(players), 11, {})
    return GameSnapshot(4, -100, 0, "koira", {}, "finished", 40, state, 1000, 5, 6, players)


RATED = [EloChange(1500.0, 1519.6, 1), EloChange(1500.0, 1499.8, 1),
         EloChange(1523.0, 1514.9, 12)]


def test_the_final_lines_carry_each_rated_players_change() -> None:
    game = _coyote(_players([1, 2, 3], RATED))
    with use_language("en"):
        lines = [_plain(line) for line in results.final_lines(game)]
        notes = results.rating_lines(game)
    assert lines == ["🥇 Ann · +20 (Elo 1520?)", "🥈 Bob · ±0 (Elo 1500?)",
                     "🥉 Cat · −8 (Elo 1515)"]  # the shown ratings' difference; 12 games: no ?
    assert notes == ["(? = provisional: fewer than 10 rated games)"]


def test_no_question_mark_legend_when_nobody_is_provisional() -> None:
    established = [EloChange(1600.0, 1610.2, 30), EloChange(1500.0, 1495.0, 10),
                   EloChange(1400.0, 1394.8, 11)]
    with use_language("en"):
        assert results.rating_lines(_coyote(_players([1, 2, 3], established))) == []


def test_a_computer_and_an_unrated_human_show_no_change() -> None:
    game = _coyote(_players([1, 2, 3], [None, None, None], ai=2))
    with use_language("en"):
        lines = [_plain(line) for line in results.final_lines(game)]
    assert lines == ["🥇 Ann", "🥈 Bob", "🥉 Cat"], lines
    four = _coyote(_players([1, 2, 3, 4], [*RATED, None]))  # Dan never moved
    with use_language("en"):
        lines = [_plain(line) for line in results.final_lines(four)]
        notes = results.rating_lines(four)
    assert lines[-1] == "4. Dan"
    assert [note.translate(BIDI) for note in notes] == [
        "⚖️ Not rated: Dan, who made no move of their own.",
        "(? = provisional: fewer than 10 rated games)"]


@pytest.mark.parametrize("place, word", [(1, "1st"), (2, "2nd"), (3, "3rd"), (4, "4th"),
                                         (11, "11th"), (12, "12th"), (13, "13th"),
                                         (21, "21st"), (22, "22nd")])
def test_english_ordinals(place: int, word: str) -> None:
    with use_language("en"):
        assert results.ordinal(place) == word


EXPECTED = {
    ("coyote", "en"): "🐺 Game #3 is over: you came 2nd of 3 (Elo ±0).",
    ("coyote", "ko"): "🐺 #3 게임이 끝났어요. 내 순위: 3명 중 2위 (Elo ±0)",
    ("coyote", "ja"): "🐺 ゲーム #3 終了：3人中2位でした（Elo ±0）。",
    ("coyote", "es"): "🐺 La partida #3 ha terminado: quedaste en el puesto 2 de 3 (Elo ±0).",
    ("koira", "en"): "🐕 Koira #4 is over: you came 2nd of 3 (Elo ±0).",
    ("koira", "ko"): "🐕 코이라 #4 게임이 끝났어요. 내 순위: 3명 중 2위 (Elo ±0)",
    ("koira", "ja"): "🐕 コイラ #4 終了：3人中2位でした（Elo ±0）。",
    ("koira", "es"): "🐕 La partida de Koira #4 ha terminado: quedaste en el puesto 2 de 3 "
                     "(Elo ±0).",
}


@pytest.mark.parametrize("kind, language", sorted(EXPECTED))
def test_the_last_private_message_names_place_and_change(kind: str, language: str) -> None:
    """Bob reads his last private message in his own language: place among 3, change."""
    players = _players([1, 2, 3], RATED, languages=["en", language, "en"])
    game = (_coyote if kind == "coyote" else _koira)(players)
    game = replace(game, language="en", chat_title="Group")
    bob = game.seated[1]
    text = _plain(ui_for(game).private_closed_text(game, 5, reader=bob))
    assert text.splitlines()[-1] == EXPECTED[(kind, language)], text
    assert "see the group" not in text
    ann = _plain(ui_for(game).private_closed_text(game, 5, reader=game.seated[0]))
    cat = _plain(ui_for(game).private_closed_text(game, 5, reader=game.seated[2]))
    assert "1st of 3 (Elo +20)" in ann and "3rd of 3 (Elo −8)" in cat


@pytest.mark.parametrize("kind", ["coyote", "koira"])
def test_unrated_the_last_private_message_names_only_the_place(kind: str) -> None:
    players = _players([2, 1, 3], [None, None, None], ai=2)
    game = (_coyote if kind == "coyote" else _koira)(players)
    text = _plain(ui_for(game).private_closed_text(game, 5, reader=game.seated[0]))
    title = "🐺 Game #3" if kind == "coyote" else "🐕 Koira #4"
    assert text.endswith(f"{title} is over: you came 2nd of 3."), text
    assert "Elo" not in text


def test_a_round_of_a_running_game_still_says_see_the_group() -> None:
    game = _coyote(_players([1, 2, 3], [None, None, None]), status="running")
    text = _plain(ui_for(game).private_closed_text(game, 5, reader=game.seated[0]))
    assert text.endswith("🐺 Game #3 · round 5 is over (see the group).")
