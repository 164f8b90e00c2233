"""No English is left in what a game's players read when their language is not English.

Every message and button of a seeded recorded game of each edition (``tests/recorded.py``) is
rendered in each language that has a catalog and searched for English runs
(``tests/english_check.py``).
"""

from __future__ import annotations

import pytest

from telegram_app.i18n import DEFAULT_LANGUAGE, available
from tests.english_check import english_runs, rendering_faults
from tests.recorded import EDITION_NAMES, NAMES, messages

LANGUAGES = [code for code in available() if code != DEFAULT_LANGUAGE]


@pytest.mark.parametrize("edition", EDITION_NAMES)
@pytest.mark.parametrize("language", LANGUAGES)
def test_a_recorded_game_has_no_english_left(language: str, edition: str) -> None:
    found = []
    for what, text in messages(edition, 1, language):
        whole = what.startswith(("button", "alert"))
        found += [f"{what}: {run!r}" for run in rendering_faults(
            text, language, tuple(NAMES), whole=whole)]
    assert not found, f"{len(found)} English runs, first ones:\n" + "\n".join(
        sorted(set(found))[:20])


def test_there_is_a_language_to_check() -> None:
    assert {"ko", "ja", "es"} <= set(LANGUAGES)


def test_the_check_finds_english() -> None:
    # The same game in English is full of it, and one English sentence in Korean is found.
    runs = [run for what, text in messages("classic", 1, "en")
            for run in english_runs(text, "ko", tuple(NAMES), whole=what.startswith("button"))]
    assert len(runs) > 100
    assert english_runs("🐺 게임 #7 · 3라운드 · It is your turn now.", "ko") == \
        ["your turn now"]  # (words under three letters are left out)
    assert english_runs("<b>Skip</b>", "ko", whole=True) == ["Skip"]
    assert english_runs("⁨Kim⁩: 5 · /rules · 코요테!", "ko", ("Kim",), whole=True) == []
