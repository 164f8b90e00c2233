"""Checks of a translation catalog against the template (``messages.pot``): what
``tests/test_catalogs.py`` runs over every catalog, and over small fixture catalogs.

:func:`catalog_problems` returns one line per problem, empty when the catalog is complete:
a template message missing, untranslated (a plural form empty) or fuzzy; a ``{placeholder}``
or an HTML tag that differs from the source; plural forms other than the language's (Babel's
CLDR data) in the header or in an entry.
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path
from string import Formatter

from babel.messages.catalog import Catalog, Message
from babel.messages.plurals import get_plural
from babel.messages.pofile import read_po

TAG = re.compile(r"</?[a-zA-Z][a-zA-Z0-9-]*(?:\s[^<>]*)?>")
"""An HTML tag of Telegram's subset (``<b>``, ``</i>``, ``<a href="…">``, ``<tg-time …>``)."""


def read(path: Path, locale: str | None = None) -> Catalog:
    """A ``.po``/``.pot`` file as a Babel catalog."""
    with path.open("rb") as fh:
        return read_po(fh, locale=locale)


def placeholders(text: str) -> Counter[str]:
    """The ``str.format`` fields of ``text`` by name (``{name}``, ``{n:+d}`` → ``n``);
    ``{{``/``}}`` are literal braces. A malformed format string gives ``{"<malformed>": 1}``."""
    try:
        return Counter(field.split(".")[0].split("[")[0]
                       for _, field, _, _ in Formatter().parse(text) if field is not None)
    except ValueError:
        return Counter({"<malformed>": 1})


def tags(text: str) -> Counter[str]:
    """The HTML tags of ``text``, attributes included (``{placeholders}`` in them too)."""
    return Counter(TAG.findall(text))


def _forms(message: Message) -> tuple[str, ...]:
    return tuple(message.string) if isinstance(message.string, (list, tuple)) else \
        (message.string or "",)


def _ids(message: Message) -> tuple[str, ...]:
    return tuple(message.id) if isinstance(message.id, (list, tuple)) else (message.id,)


def catalog_problems(po_path: Path, pot_path: Path) -> list[str]:
    """What is wrong with the catalog ``po_path`` (its language: the folder above
    ``LC_MESSAGES``) against the template ``pot_path``; ``[]`` when nothing is."""
    language = po_path.parent.parent.name
    template = read(pot_path)
    catalog = read(po_path, locale=language)
    problems: list[str] = []
    expected = get_plural(language)
    if catalog.num_plurals != expected.num_plurals or \
            catalog.plural_expr.replace(" ", "") != expected.plural_expr.replace(" ", ""):
        problems.append(f"{language}: Plural-Forms is nplurals={catalog.num_plurals}; "
                        f"plural={catalog.plural_expr}, the language has "
                        f"{expected.plural_forms}")
    for source in template:
        if not source.id:
            continue
        key = source.id if isinstance(source.id, str) else source.id[0]
        where = f"{language}: {key[:60]!r}"
        message = catalog.get(source.id)
        if message is None:
            problems.append(f"{where}: missing (run `make messages`)")
            continue
        if message.fuzzy:
            problems.append(f"{where}: fuzzy")
        forms = _forms(message)
        if not all(form.strip() for form in forms):
            problems.append(f"{where}: untranslated")
            continue
        ids = _ids(source)
        if len(ids) > 1 and len(forms) != expected.num_plurals:
            problems.append(f"{where}: {len(forms)} plural forms, the language has "
                            f"{expected.num_plurals}")
        for index, form in enumerate(forms):
            # Form 0 of a language with one form says what the plural source says; a
            # singular form may drop the count ("one card") but add no other field.
            allowed = placeholders(ids[0]) | placeholders(ids[-1])
            wanted = placeholders(ids[-1] if index > 0 or expected.num_plurals == 1
                                  else ids[0])
            got = placeholders(form)
            dropped = {"n"} if index == 0 and len(forms) > 1 else set()
            if set(got) - set(allowed) or (set(wanted) - set(got) - dropped) or \
                    "<malformed>" in got:
                problems.append(f"{where}: placeholders {sorted(got)} differ from the "
                                f"source's {sorted(wanted)}")
            if tags(form) != tags(ids[min(index, len(ids) - 1)]) and \
                    tags(form) != tags(ids[-1]):
                problems.append(f"{where}: HTML tags {sorted(tags(form))} differ from the "
                                f"source's {sorted(tags(ids[0]))}")
    return problems


def catalogs(locales: Path) -> list[Path]:
    """Every catalog under ``locales`` (``<lang>/LC_MESSAGES/messages.po``), English (the
    source, whose empty translations mean "as written") left out."""
    return sorted(p for p in locales.glob("*/LC_MESSAGES/messages.po")
                  if p.parent.parent.name != "en")
