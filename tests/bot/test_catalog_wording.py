"""The catalogs' wording, pinned where it once went wrong: Korean particles chosen rather than
written as pairs ("3♥️을(를)", "게임 #1이(가)"), Korean words a card player uses (the stock
is no warehouse's 재고, a pick-up takes a play, not one's whole hand), one register per
language in /help and the rules, the Spanish host without a gender, the stock's top card
turned up rather than the whole stock. No network."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from babel.messages.catalog import Catalog
from babel.messages.pofile import read_po

from telegram_app.games.koira import table as koira_table
from telegram_app.games.koira.words import suit_name
from telegram_app.i18n import LOCALES, _, use_language


def catalog(language: str) -> Catalog:
    with open(LOCALES / language / "LC_MESSAGES" / "messages.po", "rb") as f:
        return read_po(f)


def entries(language: str) -> Iterator[tuple[str, str]]:
    """(msgid, msgstr) of every live entry, every plural form."""
    for message in catalog(language):
        if not message.id:
            continue
        msgid = message.id if isinstance(message.id, str) else message.id[0]
        forms = [message.string] if isinstance(message.string, str) else message.string
        for form in forms:
            yield msgid, form


def translation(language: str, msgid: str) -> str:
    found = [text for key, text in entries(language) if key == msgid]
    assert found, msgid
    return found[0]


PAIRED = re.compile(r"\((?:을|를|이|가|은|는|과|와|으|으로|로|이라|라|아|야|이나|나|이랑|랑)\)")
AFTER_PLACEHOLDER = re.compile(r"\{(\w+)\}(?:</b>)?(?:을|를|이|가|은|는|과|와|으로|로|예요|"
                               r"이에요|였|이었|라고|이라고|랑|이랑|나|이나)(?![가-힣])")
CLOSED = {"suit", "n"}
"""Placeholders a particle may follow: their Korean values are a closed set, each ending in
a vowel (checked below); any other placeholder is rephrased so no particle follows it."""


def has_final_consonant(syllable: str) -> bool:
    return 0xAC00 <= ord(syllable) <= 0xD7A3 and (ord(syllable) - 0xAC00) % 28 != 0


def last_hangul(text: str) -> str:
    return next(ch for ch in reversed(text) if 0xAC00 <= ord(ch) <= 0xD7A3)


def test_korean_particles_are_chosen_not_written_as_pairs() -> None:
    paired = [(key, text) for key, text in entries("ko") if PAIRED.search(text)]
    assert paired == []


def test_no_korean_particle_follows_an_open_placeholder() -> None:
    """A card label, a number or a name can end in anything: nothing after it may depend on
    its last sound."""
    found = [(key, m.group(0)) for key, text in entries("ko")
             for m in AFTER_PLACEHOLDER.finditer(text) if m.group(1) not in CLOSED]
    assert found == []


def test_the_closed_values_before_a_particle_end_in_a_vowel() -> None:
    """The suit names ("{suit}예요", "{suit}가") and the lives a showdown costs ("{n}를")."""
    with use_language("ko"):
        values = [suit_name(s) for s in "SHDC"] + [koira_table.suit_name(s) for s in "SHDC"]
        values += [_("a life"), _("two lives (🎭 Double)")]
    assert [v for v in values if has_final_consonant(last_hangul(v))] == []


def test_korean_card_words() -> None:
    texts = [text for _key, text in entries("ko")]
    assert not [t for t in texts if "재고" in t]  # a shop's stock: the pile is 카드 더미
    assert translation("ko", "Stock: {n} card") == "카드 더미: {n}장"
    whole = translation("ko", "📥 Pick up: a whole play")
    assert "패 전체" not in whole and "시퀀스" in whole


def test_korean_help_and_rules_keep_one_register() -> None:
    """해요체 throughout (…해요, …하세요), never …합니다."""
    formal = [key for key, text in entries("ko") if re.search(r"[니습]다[.\s!]|니다$", text)]
    assert formal == []
    help_line = translation("ko", "🐺 <b>Coyote</b>: /newgame classic, feathers or poker-deck "
                                  "chooses its edition; /rules with an edition explains it.")
    assert help_line.endswith("요.")


def test_japanese_help_keeps_desu_masu_and_a_whole_play_is_not_every_card() -> None:
    koira = translation("ja", "🐕 <b>Koira</b>: /newgame koira opens its lobby, /rules koira "
                              "explains it, /standings koira and /top koira show its own "
                              "league.")
    assert koira.endswith("ます。")
    assert "札全体" not in translation("ja", "📥 Pick up: a whole play")


HOST = ["{name} (the host) sets the options and starts the game.",
        "Only the host (who opened the lobby) can do that.",
        "Only the host or a chat admin can do that.",
        "Waiting in the lobby: the host starts the game in the group."]


@pytest.mark.parametrize("msgid", HOST)
def test_the_spanish_host_has_no_gender(msgid: str) -> None:
    text = translation("es", msgid)
    assert not re.search(r"anfitri[óo]n|anfitriona|\bel (?:creador|organizador)\b", text)


def test_spanish_words_about_a_named_player_have_no_gender() -> None:
    """"Lucía (el anfitrión)", "Lucía es el koira", "(Lucía jugó el último)": a name is
    told without a masculine word about it."""
    named = [(key, text) for key, text in entries("es") if re.search(
        r"\{name\} \(el |\{name\} es el |El koira es \{name\}|\{name\} jugó el último", text)]
    assert named == []


@pytest.mark.parametrize("language", ["es", "ko"])
def test_the_stocks_top_card_is_turned_up_not_the_stock(language: str) -> None:
    texts = [text for _key, text in entries(language)]
    if language == "es":
        assert not [t for t in texts if re.search(r"vuelta al montón|destapa(?:r)? el montón|"
                                                  r"[Gg]irar el montón", t)]
    else:
        assert not [t for t in texts if re.search(r"더미(?:를)? 뒤집", t)]
