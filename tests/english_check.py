"""Finds English left in a message meant for another language.

:func:`english_runs` flags runs of two or more ASCII words that all occur in the English
source strings (the template ``messages.pot``), and a button or alert that is one such word on
its own ("Skip", "Higher"). Names, numbers, commands (``/rules``), HTML tags, links, words
the language's own catalog writes (a term the seed text keeps in Latin letters) and a few
words every language writes the same (:data:`SAME_EVERYWHERE`) do not count.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import cache
from html import unescape
from typing import Any

from telegram_app.i18n import LOCALE_DIRS, LOCALES, NATIVE_NAMES
from tests.catalog_check import read

SAME_EVERYWHERE = frozenset({
    "coyote", "elo", "ai", "max", "id", "utc", "ok", "telegram", "html", "emoji", "min",
})
"""Words the catalogs may keep as they are (the game's name, Elo, AI, MAX, UTC …)."""

_TAG = re.compile(r"<[^>]*>")
_SKIPPED = re.compile(r"/[a-z_]+(?:@\w+)?|https?://\S+|tg://\S+|#\d+|\{[^{}]*\}")
_WORD = re.compile(r"[A-Za-z][A-Za-z'’]*")
_GAP = re.compile(r"^[\s,;:.!?()\-–—'\"“”‘’]*$")


def _words(texts: Iterable[str]) -> set[str]:
    return {w.lower() for text in texts
            for w in _WORD.findall(_SKIPPED.sub(" ", _TAG.sub(" ", text))) if len(w) >= 3}


@cache
def vocabulary(language: str) -> frozenset[str]:
    """Lower-case words of three letters or more in the English source strings, less those
    the ``language`` catalog writes itself (the Japanese seed's mask SHOT, a command's
    argument) and :data:`SAME_EVERYWHERE` (shorter words, "a", "of", "to", are too often
    parts of names, card labels or codes)."""
    source = _words(text for message in read(LOCALES / "messages.pot") if message.id
                    for text in ([message.id] if isinstance(message.id, str) else message.id))
    po = next((d / language / "LC_MESSAGES" / "messages.po" for d in LOCALE_DIRS
               if (d / language / "LC_MESSAGES" / "messages.po").is_file()), None)
    kept = set() if po is None else _words(
        text for message in read(po, language) if message.id and message.string
        for text in ([message.string] if isinstance(message.string, str) else message.string))
    return frozenset(source - kept - SAME_EVERYWHERE - {n.lower() for n in NATIVE_NAMES.values()})


def english_runs(text: str, language: str, names: tuple[str, ...] = (), *,
                 whole: bool = False) -> list[str]:
    """The English runs in ``text`` (Telegram HTML or plain): two or more source words in a
    row with only spaces and punctuation between them; with ``whole`` (a button, an alert),
    also a single source word that is all the text's letters. ``names``: the players' names,
    never counted."""
    plain = unescape(_TAG.sub(" ", text)).replace("\u2068", " ").replace("\u2069", " ")
    for name in names:
        plain = plain.replace(name, " ")
    plain = _SKIPPED.sub(" | ", plain)
    words = vocabulary(language)
    runs: list[str] = []
    current: list[str] = []
    last_end = 0
    matches = list(_WORD.finditer(plain))
    for match in matches:
        gap = plain[last_end:match.start()]
        english = match.group().lower().strip("'’") in words
        if english and current and _GAP.match(gap):
            current.append(match.group())
        else:
            if len(current) >= 2:
                runs.append(" ".join(current))
            current = [match.group()] if english else []
        last_end = match.end()
    if len(current) >= 2:
        runs.append(" ".join(current))
    if whole and not runs and len(matches) == 1 and \
            matches[0].group().lower() in words:
        runs.append(matches[0].group())
    return runs


@cache
def untranslated(language: str) -> tuple[str, ...]:
    """The source strings (lower case) the ``language`` catalog lacks or leaves empty: English
    that comes from them is the catalog check's business (``tests/test_catalogs.py``), not a
    rendering fault."""
    po = next((d / language / "LC_MESSAGES" / "messages.po" for d in LOCALE_DIRS
               if (d / language / "LC_MESSAGES" / "messages.po").is_file()), None)
    catalog = None if po is None else read(po, language)
    missing = []
    for message in read(LOCALES / "messages.pot"):
        if not message.id:
            continue
        found = None if catalog is None else catalog.get(message.id)
        strings = [] if found is None else (
            [found.string] if isinstance(found.string, str) else list(found.string))
        if not strings or not all(strings) or found.fuzzy:
            ids = [message.id] if isinstance(message.id, str) else list(message.id)
            missing += [" ".join(_WORD.findall(_TAG.sub(" ", i))).lower() for i in ids]
    return tuple(missing)


def rendering_faults(text: str, language: str, names: tuple[str, ...] = (), *,
                     whole: bool = False) -> list[str]:
    """:func:`english_runs` less those that come from a string the catalog has not
    translated yet (:func:`untranslated`)."""
    pending = untranslated(language)
    return [run for run in english_runs(text, language, names, whole=whole)
            if not any(run.lower() in source for source in pending)]


def main(argv: list[str] | None = None) -> int:
    """``python -m tests.english_check [LANG …]``: print the English runs found in recorded
    games of every edition (default: every language with a catalog but English); exit status
    1 if any."""
    import sys

    from telegram_app.i18n import DEFAULT_LANGUAGE, available
    from tests.recorded import EDITION_NAMES, NAMES, messages

    languages = (sys.argv[1:] if argv is None else argv) or \
        [code for code in available() if code != DEFAULT_LANGUAGE]
    found = 0
    for language in languages:
        for edition in EDITION_NAMES:
            seen: set[tuple[str, str]] = set()
            for what, text in messages(edition, 1, language):
                for run in rendering_faults(text, language, tuple(NAMES),
                                            whole=what.startswith(("button", "alert"))):
                    if (what, run) not in seen:
                        seen.add((what, run))
                        print(f"{language} {edition} {what}: {run!r}")
            found += len(seen)
    print(f"{found} English runs in {', '.join(languages)}")
    return 1 if found else 0


if __name__ == "__main__":
    import tests.conftest  # noqa: F401  (the fixture catalogs, as in the tests)

    raise SystemExit(main())


def log_faults(log: Iterable[Any], languages: dict[int, str], actors: dict[int, str],
               names: tuple[str, ...] = ()) -> list[tuple[str, int | None, str]]:
    """:func:`rendering_faults` of every text, answer and button label in a fake Bot API's
    ``log``: a chat's entries read in ``languages[chat id]``, a callback answer in its
    presser's ``actors[user id]``; entries of other chats are skipped. ``(kind, chat, run)``."""
    faults: list[tuple[str, int | None, str]] = []
    for entry in log:
        language = actors.get(entry.actor) if entry.kind == "answer" \
            else languages.get(entry.chat_id or 0)
        if language is None or entry.kind not in ("send", "edit", "answer"):
            continue
        faults += [(entry.kind, entry.chat_id, run) for run in rendering_faults(
            entry.text or "", language, names, whole=entry.kind == "answer")]
        faults += [("button", entry.chat_id, run) for row in entry.buttons for label in row
                   for run in rendering_faults(label, language, names, whole=True)]
    return faults
