"""No English left in a Koira game read in Korean, Japanese or Spanish: every text, button,
note, alert and fixed text of a seeded game (``tests/english_check.py``'s measure)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from telegram_app.games.koira import errors
from telegram_app.games.koira.ui import KOIRA
from telegram_app.i18n import DEFAULT_LANGUAGE, available, use_language
from tests.bot.koira.helpers import GAME, NAMES, play_random, snapshot
from tests.english_check import english_runs

try:
    from league.match.outcome import Step
except ImportError:  # before the league's refactor is merged
    from league.service import Step  # type: ignore[no-redef]

LANGUAGES = [code for code in available() if code != DEFAULT_LANGUAGE]


def messages(language: str) -> list[tuple[str, bool]]:
    """(text, whole) of everything a 4-player seeded game shows, in ``language``."""
    out: list[tuple[str, bool]] = []
    history = play_random(8, 4)
    for n, (state, events) in enumerate(history):
        game = snapshot(state, language=language, languages=[language] * 4)
        report = KOIRA.report(game, [Step(0, False, events, state)])
        out.append(("\n".join(report.lines), False))
        if n % 4:
            continue
        out.append((KOIRA.table_text(game, mention=True), False))
        for seat in range(4):
            out.append((KOIRA.private_text(game, seat), False))
            out += [(b.text, True) for row in KOIRA.private_rows(game, seat) for b in row]
            out.append((KOIRA.peek_alert(game, seat) or "", True))
        seat = GAME.current_seat(state)
        if seat is not None:
            out.append((str(KOIRA.typed(game, seat, "zz")), True))
    game = snapshot(history[-1][0], language=language, languages=[language] * 4)
    lobby = replace(game, status="lobby")
    with use_language(language):
        out.append(("\n".join(KOIRA.replay_lines(game, [e for _, e in history])), False))
        out += [(KOIRA.rules_text([], o), False) for o in ({}, {"tie_split": True,
                "trump_ends_trick": True, "pickup_single": True, "min_sequence": 3})]
        out += [(errors.error_text(code, {"min": 2, "max": 8}), True)
                for code in errors.ERROR_CODES]
        out.append((str(KOIRA.new_game_options(["zz"])), True))
        out.append((KOIRA.typed_choose_text([game]), True))
        out += [(KOIRA.option_label(lobby, spec, v), True) for spec in GAME.option_specs()
                for v in spec.values]
    out += [(KOIRA.lobby_text(lobby, set()), False), (KOIRA.lobby_closed_text(game), False),
            (KOIRA.lobby_expired_text(lobby), False),
            (KOIRA.private_closed_text(game, 1, reader=game.players[0]), False)]
    return out


@pytest.mark.parametrize("language", LANGUAGES)
def test_no_english_in_a_koira_game(language: str) -> None:
    found = sorted({run for text, whole in messages(language)
                    for run in english_runs(text, language, tuple(NAMES), whole=whole)})
    assert not found, found
