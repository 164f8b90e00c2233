"""Translations through gettext, with catalogs kept as ``.po`` files, in the language of the
message being rendered.

The ``.po`` catalogs in ``telegram_app/locales/<lang>/LC_MESSAGES/messages.po`` are compiled in
memory with Babel when first used, so no compiled ``.mo`` file needs to be built or committed.
Extract new strings with ``make messages``; ``make language LANG=xx`` starts a new catalog. Use
``_("text {name}").format(name=...)`` and ``n_("one", "many {n}", n)``; never build a sentence
from fragments.

The language is a context variable: :func:`use_language` sets it for a block (a group message is
rendered in the chat's language, a private message or an alert in the user's), and ``_``/``n_``
translate into it. Asyncio tasks copy the context when they are created, so a task started
inside the block renders in the same language. Outside any block the language is English.
"""

from __future__ import annotations

import gettext
import io
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from datetime import date, datetime
from functools import lru_cache
from pathlib import Path

from babel import Locale
from babel.dates import format_date, format_datetime, format_skeleton, format_time
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po
from babel.numbers import format_decimal

LOCALES = Path(__file__).resolve().parent / "locales"
LOCALE_DIRS: list[Path] = [LOCALES]
"""Where catalogs are looked for, first match wins (tests may append a folder of fixture
catalogs for a language the project has none of yet; clear :func:`translations`' cache)."""
DEFAULT_LANGUAGE = "en"
SUPPORTED: tuple[str, ...] = ("en", "ko", "ja", "es")
"""The languages the bot speaks (a catalog each; ``en`` is the source). Add a fifth here and
with ``make language LANG=xx`` (DEVELOPERS.md)."""

NATIVE_NAMES = {"en": "English", "ko": "한국어", "ja": "日本語", "es": "Español"}
"""Each supported language's name in itself (the /language keyboard, /settings)."""

_current: ContextVar[str] = ContextVar("language", default=DEFAULT_LANGUAGE)


def normalize(code: str | None) -> str:
    """The supported language for a client's or a setting's ``code``: the exact code, else its
    base language, else English. ``"ko-KR"`` → ``"ko"``, ``"es_419"`` → ``"es"``,
    ``"pt-br"``/``"zh-hans"``/``None``/``""`` → ``"en"``. Case and ``-``/``_`` do not matter."""
    if not code or not isinstance(code, str):
        return DEFAULT_LANGUAGE
    code = code.strip().replace("_", "-").lower()
    if code in SUPPORTED:
        return code
    base = code.split("-")[0]
    return base if base in SUPPORTED else DEFAULT_LANGUAGE


def available() -> list[str]:
    """The supported languages that have a catalog (English always: it is the source)."""
    return [code for code in SUPPORTED if code == DEFAULT_LANGUAGE or any(
        (d / code / "LC_MESSAGES" / "messages.po").is_file() for d in LOCALE_DIRS)]


def current_language() -> str:
    """The language messages are rendered in now (one of :data:`SUPPORTED`)."""
    return _current.get()


@contextmanager
def use_language(code: str | None) -> Iterator[str]:
    """Render in ``code`` (normalised, see :func:`normalize`) inside the block; yields the
    language used. Nests; the previous language is back after the block."""
    language = normalize(code)
    token = _current.set(language)
    try:
        yield language
    finally:
        _current.reset(token)


def set_language(code: str | None) -> str:
    """Render in ``code`` (normalised) from now on in this context (an update's handlers: the
    context of one update, see ``telegram_app.app``); returns the language set."""
    language = normalize(code)
    _current.set(language)
    return language


@lru_cache(maxsize=16)
def translations(language: str = DEFAULT_LANGUAGE) -> gettext.NullTranslations:
    """The catalog for a supported ``language``; the source text (English) if it has none."""
    po = next((d / language / "LC_MESSAGES" / "messages.po" for d in LOCALE_DIRS
               if (d / language / "LC_MESSAGES" / "messages.po").is_file()), None)
    if po is None:
        return gettext.NullTranslations()
    with po.open("rb") as fh:
        catalog = read_po(fh, locale=language)
    buf = io.BytesIO()
    write_mo(buf, catalog)  # fuzzy entries are left out: they fall back to the source text
    buf.seek(0)
    return gettext.GNUTranslations(buf)


def _(message: str) -> str:
    """Translate ``message`` into the current language (:func:`use_language`)."""
    return translations(current_language()).gettext(message)


def join_list(items: Iterable[str]) -> str:
    """``items`` as a list is written in the current language: "Ann, Bob" (Japanese
    writes 「さくら、たろう」)."""
    # Translators: the separator between the items of a list ("Ann, Bob, Cat"); Japanese 、
    return _(", ").join(items)


def n_(singular: str, plural: str, n: int) -> str:
    """Translate a message whose form depends on the count ``n`` (the language's plural
    rule from its catalog's ``Plural-Forms``)."""
    return translations(current_language()).ngettext(singular, plural, n)


# --- numbers and dates, formatted by Babel for the current language ---------------------------
def locale() -> Locale:
    """The Babel locale of the current language."""
    return _locale(current_language())


@lru_cache(maxsize=16)
def _locale(language: str) -> Locale:
    return Locale.parse(language)


def format_number(value: float, pattern: str | None = None) -> str:
    """``value`` in the current language's digits and separators (``1234.5`` → ``1,234.5``
    in English, ``1.234,5`` in Spanish); ``pattern`` is a Babel/CLDR number pattern."""
    return format_decimal(value, format=pattern, locale=locale())


def format_day(moment: date | datetime, fmt: str = "medium", *,
               skeleton: str | None = None) -> str:
    """A date in the current language (``fmt``: ``short``/``medium``/``long`` or a CLDR
    pattern such as ``"EEE d MMM"``, whose order is the same in every language). With a CLDR
    ``skeleton`` (``"MMMEd"``: weekday, day, short month) the fields come in the language's
    own order and units (``Mon, Nov 30``, ``11월 30일 (월)``, ``11月30日(月)``). A datetime
    is taken as it is (convert it to the zone wanted first)."""
    day = moment.date() if isinstance(moment, datetime) else moment
    if skeleton is not None:
        return format_skeleton(skeleton, day, locale=locale())
    return format_date(day, format=fmt, locale=locale())


def format_moment(moment: datetime, fmt: str | None = None) -> str:
    """A date and time in the current language, in ``moment``'s own zone: by default the
    day and short month in the language's order and a 24-hour time (``May 4 09:01``,
    ``5월 4일 09:01``, ``5月4日 09:01``, ``4 may 09:01``), else the CLDR pattern ``fmt``.
    For a deadline, prefer a date-time entity (``render.common.time_html``): each reader's
    client shows it in their own zone and language, and this text is only its fallback."""
    if fmt is not None:
        return format_datetime(moment, format=fmt, locale=locale())
    return f"{format_skeleton('MMMd', moment, locale=locale())} " \
        f"{format_time(moment, 'HH:mm', locale=locale())}"
