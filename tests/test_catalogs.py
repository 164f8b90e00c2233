"""Every shipped catalog is complete and faithful to the source, and the language machinery
(normalising client codes, the context language, Babel formatting) does what it says.

The catalog check (:mod:`tests.catalog_check`) runs over whatever catalogs exist under
``telegram_app/locales``, and is itself tested on tiny fixture catalogs written here.
"""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from pathlib import Path

import pytest

from telegram_app import i18n
from telegram_app.i18n import (
    LOCALES,
    SUPPORTED,
    _,
    current_language,
    format_day,
    format_moment,
    format_number,
    n_,
    normalize,
    use_language,
)
from tests.catalog_check import catalog_problems, catalogs, placeholders, tags

POT = LOCALES / "messages.pot"


# --- the shipped catalogs ---------------------------------------------------------------------
def test_every_shipped_catalog_is_complete_and_faithful() -> None:
    problems = [line for po in catalogs(LOCALES) for line in catalog_problems(po, POT)]
    assert not problems, f"{len(problems)} problems, first ones:\n" + "\n".join(problems[:15])


def test_every_catalog_is_a_supported_language_and_loads() -> None:
    for po in LOCALES.glob("*/LC_MESSAGES/messages.po"):
        language = po.parent.parent.name
        assert language in SUPPORTED, f"{language} has a catalog: add it to i18n.SUPPORTED"
        i18n.translations.cache_clear()
        assert i18n.translations(language).gettext("") is not None
    assert set(SUPPORTED) == set(i18n.NATIVE_NAMES)


# --- the check itself, on fixture catalogs ----------------------------------------------------
HEADER = '''msgid ""
msgstr ""
"Language: {lang}\\n"
"Plural-Forms: {plural}\\n"
"Content-Type: text/plain; charset=utf-8\\n"

'''

TEMPLATE = '''#, python-brace-format
msgid "Game #{id} started."
msgstr ""

msgid "<b>Your turn:</b> call Coyote!"
msgstr ""

#, python-brace-format
msgid "{n} life"
msgid_plural "{n} lives"
msgstr[0] ""
msgstr[1] ""
'''

GOOD_KO = '''#, python-brace-format
msgid "Game #{id} started."
msgstr "게임 #{id} 시작."

msgid "<b>Your turn:</b> call Coyote!"
msgstr "<b>차례:</b> 코요테!"

#, python-brace-format
msgid "{n} life"
msgid_plural "{n} lives"
msgstr[0] "목숨 {n}개"
'''


def _write(root: Path, lang: str, body: str, plural: str = "nplurals=1; plural=0;") -> Path:
    po = root / lang / "LC_MESSAGES" / "messages.po"
    po.parent.mkdir(parents=True, exist_ok=True)
    po.write_text(HEADER.format(lang=lang, plural=plural) + body, encoding="utf-8")
    return po


@pytest.fixture
def pot(tmp_path: Path) -> Path:
    path = tmp_path / "messages.pot"
    path.write_text(HEADER.format(lang="en", plural="nplurals=2; plural=(n != 1);")
                    + TEMPLATE, encoding="utf-8")
    return path


def test_a_complete_fixture_catalog_has_no_problem(tmp_path: Path, pot: Path) -> None:
    assert catalog_problems(_write(tmp_path, "ko", GOOD_KO), pot) == []
    es = GOOD_KO.replace("게임 #{id} 시작.", "Partida #{id} empezada.").replace(
        "<b>차례:</b> 코요테!", "<b>Tu turno:</b> ¡Coyote!").replace(
        'msgstr[0] "목숨 {n}개"', 'msgstr[0] "{n} vida"\nmsgstr[1] "{n} vidas"\n'
                                   'msgstr[2] "{n} vidas"')
    assert catalog_problems(_write(tmp_path, "es", es, "nplurals=3; plural=(n == 1 ? 0 : "
                                   "n != 0 && n % 1000000 == 0 ? 1 : 2);"), pot) == []


@pytest.mark.parametrize(("change", "problem"), [
    (("게임 #{id} 시작.", ""), "untranslated"),
    (('msgstr[0] "목숨 {n}개"', 'msgstr[0] ""'), "untranslated"),
    (('#, python-brace-format\nmsgid "Game', '#, fuzzy, python-brace-format\nmsgid "Game'),
     "fuzzy"),
    (("게임 #{id} 시작.", "게임 #{number} 시작."), "placeholders"),
    (("게임 #{id} 시작.", "게임 시작."), "placeholders"),
    (("게임 #{id} 시작.", "게임 #{id 시작."), "placeholders"),
    (("<b>차례:</b>", "<b>차례:<b>"), "HTML tags"),
    (("<b>차례:</b>", "<i>차례:</i>"), "HTML tags"),
    (("<b>차례:</b>", "차례:"), "HTML tags"),
    (('msgid "<b>Your turn:</b> call Coyote!"\nmsgstr "<b>차례:</b> 코요테!"\n', ""),
     "missing"),
])
def test_the_check_finds_each_kind_of_problem(tmp_path: Path, pot: Path,
                                              change: tuple[str, str], problem: str) -> None:
    assert change[0] in GOOD_KO
    problems = catalog_problems(_write(tmp_path, "ko", GOOD_KO.replace(*change)), pot)
    assert problems and all(problem in p for p in problems), problems


def test_the_check_finds_plural_forms_wrong_for_the_language(tmp_path: Path, pot: Path
                                                            ) -> None:
    problems = catalog_problems(_write(tmp_path, "ko", GOOD_KO, "nplurals=2; plural=(n != 1);"),
                                pot)
    assert any("Plural-Forms" in p for p in problems), problems
    # Spanish has three forms (CLDR "one", "many", "other"): two are not enough.
    es = GOOD_KO.replace('msgstr[0] "목숨 {n}개"', 'msgstr[0] "{n} vida"\nmsgstr[1] "{n} vidas"')
    problems = catalog_problems(_write(tmp_path, "es", es, "nplurals=2; plural=(n != 1);"), pot)
    assert any("Plural-Forms" in p for p in problems), problems
    assert any("'{n} life'" in p for p in problems), problems


def test_placeholders_and_tags_are_read_like_format_and_html() -> None:
    assert placeholders("{a} {b:+d} {{literal}} {c.x}") == {"a": 1, "b": 1, "c": 1}
    assert tags('<a href="tg://user?id={id}">{name}</a> <tg-time unix="1" format="dt">x'
                "</tg-time>") == {'<a href="tg://user?id={id}">': 1, "</a>": 1,
                                  '<tg-time unix="1" format="dt">': 1, "</tg-time>": 1}
    assert tags("bid 3 < 5 > 2") == {}


# --- the language machinery -------------------------------------------------------------------
@pytest.mark.parametrize(("code", "language"), [
    ("ko", "ko"), ("ko-KR", "ko"), ("ja-JP", "ja"), ("es-419", "es"), ("es_MX", "es"),
    ("ES", "es"), ("en-GB", "en"), ("pt-br", "en"), ("zh-hans", "en"), (None, "en"),
    ("", "en"), ("x", "en"), ("  ja ", "ja"),
])
def test_client_codes_fall_back_to_the_base_language_then_english(code: str | None,
                                                                  language: str) -> None:
    assert normalize(code) == language


def test_use_language_nests_and_restores(tmp_path: Path) -> None:
    assert current_language() == "en"
    with use_language("ja-JP") as outer:
        assert outer == current_language() == "ja"
        with use_language("es-419"):
            assert current_language() == "es"
        assert current_language() == "ja"
    assert current_language() == "en"


async def test_a_task_renders_in_the_language_it_was_started_in() -> None:
    async def language_later() -> str:
        await asyncio.sleep(0)
        return current_language()

    with use_language("ko"):
        korean = asyncio.create_task(language_later())
    spanish_context = asyncio.create_task(_in("es", language_later))
    assert await korean == "ko"
    assert await spanish_context == "es"
    assert current_language() == "en"


async def _in(code: str, work) -> str:
    with use_language(code):
        return await work()


def test_translation_follows_the_language_with_a_fixture_catalog(tmp_path: Path,
                                                                 monkeypatch) -> None:
    _write(tmp_path, "ko", GOOD_KO)
    monkeypatch.setattr(i18n, "LOCALE_DIRS", [tmp_path])
    i18n.translations.cache_clear()
    try:
        with use_language("ko-KR"):
            assert _("Game #{id} started.").format(id=7) == "게임 #7 시작."
            assert n_("{n} life", "{n} lives", 3).format(n=3) == "목숨 3개"
            assert _("not in the catalog") == "not in the catalog"
        with use_language("ja"):  # no catalog: the source text
            assert _("Game #{id} started.") == "Game #{id} started."
        assert n_("{n} life", "{n} lives", 1) == "{n} life"
    finally:
        i18n.translations.cache_clear()


def test_numbers_and_dates_are_formatted_for_the_language() -> None:
    day = datetime(2026, 3, 5, 14, 30, tzinfo=UTC)
    with use_language("en"):
        assert format_number(1234.5) == "1,234.5"
        assert format_day(day) == "Mar 5, 2026"
    with use_language("es"):
        assert format_number(1234.5) == "1.234,5"
        assert "mar" in format_day(day)
    with use_language("ko"):
        assert format_day(day) == "2026. 3. 5."
    with use_language("ja"):
        assert format_day(day) == "2026/03/05"
    expected = {"en": "Mar 5 14:30", "ko": "3월 5일 14:30", "ja": "3月5日 14:30",
                "es": "5 mar 14:30"}
    for code, text in expected.items():
        with use_language(code):
            assert format_moment(day) == text
