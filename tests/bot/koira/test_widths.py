"""Koira's button labels fit a phone in every language: none more than a third wider than
in English (the measure of ``tests/bot/test_button_widths.py``), on the keyboards of seeded
games (phase 1, phase 2 with a selection, the pick-up) and the lobby's option buttons."""

from __future__ import annotations

import pytest

from engine.koira.deal import OPTION_SPECS
from telegram_app.games.koira import keyboards, options
from telegram_app.i18n import DEFAULT_LANGUAGE, available, use_language
from tests.bot.koira.helpers import GAME, play_random, snapshot
from tests.bot.test_button_widths import columns

LANGUAGES = [code for code in available() if code != DEFAULT_LANGUAGE]


def labels(language: str) -> list[str]:
    """Every button label of a few seeded games and the option buttons, in ``language``."""
    out = []
    with use_language(language):
        for spec in OPTION_SPECS:
            out += [options.option_label(spec.name, v) for v in spec.values]
    for seed in (1, 2):
        for state, _ in play_random(seed, 4)[::2]:
            seat = GAME.current_seat(state)
            if seat is None:
                continue
            game = snapshot(state, languages=[language] * 4)
            hand = GAME.view(state, seat)["hand"]
            sequences = [a.cards for a in GAME.legal_actions(state, seat)
                         if a.cards and len(a.cards) > 1]
            selection = keyboards.mask_of(hand, sequences[0]) if sequences else 0
            for sel in {0, selection}:
                markup = keyboards.private_keyboard(game, seat, sel)
                if markup is not None:
                    out += [b.text for row in markup.inline_keyboard for b in row]
    return out


@pytest.mark.parametrize("language", LANGUAGES)
def test_koira_buttons_are_at_most_a_third_wider_than_in_english(language: str) -> None:
    english, other = labels(DEFAULT_LANGUAGE), labels(language)
    assert len(english) == len(other)
    wide = sorted({f"{t!r} ({columns(t)}) for {e!r} ({columns(e)})"
                   for e, t in zip(english, other, strict=True) if 3 * columns(t) > 4 * columns(e)})
    assert not wide, "\n".join(wide)
    assert any(t != e for e, t in zip(english, other, strict=True))
