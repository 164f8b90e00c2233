"""Translations through gettext, with catalogs kept as ``.po`` files.

The ``.po`` catalogs in ``telegram_app/locales/<lang>/LC_MESSAGES/messages.po`` are compiled in
memory with Babel when first used, so no compiled ``.mo`` file needs to be built or committed.
Extract new strings with ``make messages``. Use ``_("text {name}").format(name=...)`` and
``n_("one", "many {n}", n)``; never build a sentence from fragments.
"""

from __future__ import annotations

import gettext
import io
from functools import lru_cache
from pathlib import Path

from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po

LOCALES = Path(__file__).resolve().parent / "locales"
DEFAULT_LANGUAGE = "en"


@lru_cache(maxsize=16)
def translations(language: str = DEFAULT_LANGUAGE) -> gettext.NullTranslations:
    """The catalog for ``language`` (``"en"``, ``"pt-BR"`` …); falls back to the source text."""
    for code in (language, language.split("-")[0].split("_")[0]):
        po = LOCALES / code / "LC_MESSAGES" / "messages.po"
        if po.is_file():
            with po.open("rb") as fh:
                catalog = read_po(fh, locale=code)
            buf = io.BytesIO()
            write_mo(buf, catalog)
            buf.seek(0)
            return gettext.GNUTranslations(buf)
    return gettext.NullTranslations()


def _(message: str) -> str:
    """Translate ``message`` into the bot's language."""
    return translations().gettext(message)


def n_(singular: str, plural: str, n: int) -> str:
    """Translate a message whose form depends on the count ``n``."""
    return translations().ngettext(singular, plural, n)
