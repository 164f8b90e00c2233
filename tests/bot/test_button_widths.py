"""Button labels fit a phone in every language: no label wider than its English one by more
than a third, counting East Asian wide characters (Hangul, kana, kanji, most emoji) as two
columns. Measured on every button of seeded recorded games (``tests/recorded.py``), button by
button against the same button in English, in each language that has a catalog."""

from __future__ import annotations

import unicodedata
from pathlib import Path

import pytest

from telegram_app import i18n
from telegram_app.i18n import DEFAULT_LANGUAGE, available
from tests.recorded import EDITION_NAMES, messages

LANGUAGES = [code for code in available() if code != DEFAULT_LANGUAGE]
ZERO_WIDTH = {"\ufe0f", "\ufe0e", "\u200d", "\u2068", "\u2069"}


def columns(text: str) -> int:
    """The columns ``text`` takes: 2 for a wide or full-width character and for one shown as
    an emoji (followed by U+FE0F, as in ❤️), 0 for a combining mark, a variation selector, a
    joiner or a bidi isolate, else 1."""
    total = 0
    for ch, following in zip(text, text[1:] + " ", strict=True):
        if ch in ZERO_WIDTH or unicodedata.combining(ch):
            continue
        total += 2 if unicodedata.east_asian_width(ch) in ("W", "F") or \
            following == "\ufe0f" else 1
    return total


def too_wide(language: str, edition: str) -> list[str]:
    """The buttons of a recorded game of ``edition`` wider in ``language`` than in English by
    more than a third."""
    english = [(w, t) for w, t in messages(edition, 1, DEFAULT_LANGUAGE) if w.startswith("button")]
    other = [(w, t) for w, t in messages(edition, 1, language) if w.startswith("button")]
    assert [w for w, _ in english] == [w for w, _ in other], "keyboards differ in shape"
    return sorted({f"{t!r} ({columns(t)} columns) for {e!r} ({columns(e)})"
                   for (_, e), (_, t) in zip(english, other, strict=True)
                   if 3 * columns(t) > 4 * columns(e)})


@pytest.mark.parametrize("edition", EDITION_NAMES)
@pytest.mark.parametrize("language", LANGUAGES)
def test_every_button_is_at_most_a_third_wider_than_in_english(language: str,
                                                                edition: str) -> None:
    wide = too_wide(language, edition)
    assert not wide, f"{len(wide)} labels too wide:\n" + "\n".join(wide[:20])


def test_columns_count_wide_characters_twice() -> None:
    assert columns("Join") == 4
    assert columns("참가") == 4
    assert columns("参加する") == 8
    assert columns("❤️ Lives") == 8  # the heart is wide, its variation selector takes none
    assert columns("Únete") == 5


def test_the_measure_finds_a_label_too_wide(tmp_path: Path, monkeypatch) -> None:
    po = tmp_path / "ko" / "LC_MESSAGES" / "messages.po"
    po.parent.mkdir(parents=True)
    po.write_text('msgid ""\nmsgstr ""\n"Language: ko\\n"\n"Plural-Forms: nplurals=1; '
                  'plural=0;\\n"\n\nmsgid "✋ Join"\nmsgstr "✋ 지금 이 게임에 참가하기"\n\n'
                  'msgid "🚪 Leave"\nmsgstr "🚪 나가기"\n', encoding="utf-8")
    monkeypatch.setattr(i18n, "LOCALE_DIRS", [tmp_path])
    i18n.translations.cache_clear()
    try:
        assert too_wide("ko", "classic") == [
            "'✋ 지금 이 게임에 참가하기' (26 columns) for '✋ Join' (7)"]
    finally:
        i18n.translations.cache_clear()
