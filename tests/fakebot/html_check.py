"""Telegram-style validation of ``parse_mode="HTML"`` text.

The parser follows the behaviour of Telegram's server (tdlib's ``parse_html``): the same
set of tags and attributes, the same four named entities plus numeric ones, the same error
wording (``Unsupported start tag "p" at byte offset 0`` ...). The one deliberate difference
is ``strict_amp``: Telegram silently keeps a bare ``&`` that does not start an entity, while
the fake rejects it by default so that tests catch text that was not passed through
``html.escape``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

ALLOWED_TAGS = frozenset(
    {
        "a", "b", "strong", "i", "em", "u", "ins", "s", "strike", "del", "code", "pre",
        "tg-spoiler", "span", "blockquote", "tg-emoji", "tg-time",
    }
)

_ENTITY_TYPES = {
    "b": "bold", "strong": "bold", "i": "italic", "em": "italic", "u": "underline",
    "ins": "underline", "s": "strikethrough", "strike": "strikethrough",
    "del": "strikethrough", "tg-spoiler": "spoiler", "span": "spoiler", "code": "code",
    "pre": "pre", "a": "text_link", "blockquote": "blockquote", "tg-emoji": "custom_emoji",
    "tg-time": "date_time",
}

# Bot API, "Date-time entity formatting": the format must match r|w?[dD]?[tT]?
_DATE_TIME_FORMAT = re.compile(r"r|w?[dD]?[tT]?")

_NAMED_ENTITIES = {"lt": "<", "gt": ">", "amp": "&", "quot": '"'}
_SPECIAL = re.compile("[&<]")


class HtmlParseError(ValueError):
    """Raised for text Telegram would reject; ``str(err)`` is the explanation part of
    ``Bad Request: can't parse entities: <explanation>``."""


def utf16_len(text: str) -> int:
    """Length of ``text`` in UTF-16 code units, the unit Telegram uses for entity offsets."""
    return len(text.encode("utf-16-le")) // 2


@dataclass
class _Open:
    tag: str
    start: int  # UTF-16 offset in the output text
    attrs: dict[str, str] = field(default_factory=dict)


def _byte_offset(text: str, index: int) -> int:
    return len(text[:index].encode("utf-8"))


def _decode_entity(text: str, pos: int) -> tuple[str, int] | None:
    """Decode an HTML entity starting at ``text[pos] == "&"`` like tdlib does.

    Returns ``(character, new_position)`` or ``None`` if no entity starts here.
    The terminating ``;`` is optional, as on Telegram.
    """
    end = pos + 1
    n = len(text)
    if end < n and text[end] == "#":
        end += 1
        value = 0
        digits = 0
        if end < n and text[end] == "x":
            end += 1
            while end < n and text[end] in "0123456789abcdefABCDEF":
                value = value * 16 + int(text[end], 16)
                end += 1
                digits += 1
                if value >= 0x10FFFF:
                    return None
        else:
            while end < n and text[end].isascii() and text[end].isdigit():
                value = value * 10 + int(text[end])
                end += 1
                digits += 1
                if value >= 0x10FFFF:
                    return None
        if digits == 0 or value == 0 or 0xD800 <= value <= 0xDFFF:
            return None
        char = chr(value)
    else:
        while end < n and text[end].isascii() and text[end].isalpha():
            end += 1
        name = text[pos + 1 : end]
        if name not in _NAMED_ENTITIES:
            return None
        char = _NAMED_ENTITIES[name]
    if end < n and text[end] == ";":
        end += 1
    return char, end


def _is_space(ch: str) -> bool:
    return ch in " \t\r\n\f"


def _parse_attrs(text: str, i: int, tag: str, begin: int) -> tuple[dict[str, str], int]:
    """Parse attributes of an opening tag; ``i`` points after the tag name.

    Returns the attributes and the index just after the closing ``>``.
    """
    attrs: dict[str, str] = {}
    n = len(text)
    while True:
        while i < n and _is_space(text[i]):
            i += 1
        if i >= n:
            raise HtmlParseError(
                f'Unclosed start tag "{tag}" at byte offset {_byte_offset(text, begin)}'
            )
        if text[i] == ">":
            return attrs, i + 1
        name_start = i
        while i < n and not _is_space(text[i]) and text[i] not in "=>":
            i += 1
        name = text[name_start:i].lower()
        if not name:
            raise HtmlParseError(
                f'Empty attribute name in the tag "{tag}" '
                f"at byte offset {_byte_offset(text, begin)}"
            )
        while i < n and _is_space(text[i]):
            i += 1
        if (i >= n or text[i] != "=") and tag == "blockquote" and name == "expandable":
            attrs[name] = ""
            continue
        if i >= n or text[i] != "=":
            raise HtmlParseError(
                f'Expected equal sign in declaration of an attribute of the tag "{tag}" '
                f"at byte offset {_byte_offset(text, begin)}"
            )
        i += 1
        while i < n and _is_space(text[i]):
            i += 1
        if i >= n:
            raise HtmlParseError(
                f'Unclosed start tag "{tag}" at byte offset {_byte_offset(text, begin)}'
            )
        if text[i] not in "'\"":
            token_start = i
            while i < n and (text[i].isascii() and (text[i].isalnum() or text[i] in ".-")):
                i += 1
            value = text[token_start:i].lower()
            if i >= n or (not _is_space(text[i]) and text[i] != ">"):
                raise HtmlParseError(
                    f"Unexpected end of name token at byte offset {_byte_offset(text, token_start)}"
                )
        else:
            quote = text[i]
            string_start = i
            i += 1
            chars: list[str] = []
            while i < n and text[i] != quote:
                if text[i] == "&":
                    decoded = _decode_entity(text, i)
                    if decoded is not None:
                        chars.append(decoded[0])
                        i = decoded[1]
                        continue
                chars.append(text[i])
                i += 1
            if i >= n:
                raise HtmlParseError(
                    f"Unclosed start tag at byte offset {_byte_offset(text, string_start)}"
                )
            i += 1
            value = "".join(chars)
        attrs[name] = value


def _make_entity(item: _Open, end: int) -> dict | None:
    """Build the MessageEntity dict for a closed tag, or ``None`` if it yields no entity."""
    length = end - item.start
    if length <= 0:
        return None
    entity: dict = {"type": _ENTITY_TYPES[item.tag], "offset": item.start, "length": length}
    if item.tag == "a":
        href = item.attrs.get("href", "")
        if not href:
            return None
        if href.startswith("tg://user?id="):
            entity = {"type": "text_mention", "offset": item.start, "length": length,
                      "user": {"id": int(href.split("=", 1)[1] or 0), "is_bot": False,
                               "first_name": ""}}
        else:
            entity["url"] = href
    elif item.tag == "blockquote" and "expandable" in item.attrs:
        entity["type"] = "expandable_blockquote"
    elif item.tag == "tg-emoji":
        entity["custom_emoji_id"] = item.attrs.get("emoji-id", "")
    elif item.tag == "tg-time":
        entity["unix_time"] = int(item.attrs["unix"])
        entity["date_time_format"] = item.attrs.get("format", "")
    return entity


def parse_html(text: str, *, strict_amp: bool = True) -> tuple[str, list[dict]]:
    """Parse Telegram HTML into ``(plain_text, entities)``.

    Entity offsets/lengths are in UTF-16 code units, like the Bot API. Raises
    :class:`HtmlParseError` with a Telegram-like explanation for invalid markup.
    """
    out: list[str] = []
    out_len = 0  # UTF-16 length of "".join(out)
    stack: list[_Open] = []
    entities: list[dict] = []
    i = 0
    n = len(text)
    while i < n:
        ch = text[i]
        if ch == "&":
            decoded = _decode_entity(text, i)
            if decoded is not None:
                out.append(decoded[0])
                out_len += utf16_len(decoded[0])
                i = decoded[1]
                continue
            if strict_amp:
                raise HtmlParseError(
                    f"Unescaped \"&\" at byte offset {_byte_offset(text, i)}: use &amp; "
                    "(Telegram itself tolerates this; the fake is strict)"
                )
        if ch != "<":
            # plain text up to the next "&" or "<", taken at once (a text's UTF-16 length is
            # the sum of its parts')
            found = _SPECIAL.search(text, i + 1)
            end = found.start() if found else n
            out.append(text[i:end])
            out_len += utf16_len(text[i:end])
            i = end
            continue
        begin = i
        i += 1
        if i < n and text[i] == "/":
            i += 1
            if not stack:
                raise HtmlParseError(
                    f"Unexpected end tag at byte offset {_byte_offset(text, begin)}"
                )
            name_start = i
            while i < n and not _is_space(text[i]) and text[i] != ">":
                i += 1
            end_name = text[name_start:i].lower()
            while i < n and _is_space(text[i]):
                i += 1
            if i >= n or text[i] != ">":
                raise HtmlParseError(f"Unclosed end tag at byte offset {_byte_offset(text, begin)}")
            i += 1
            top = stack.pop()
            if end_name and end_name != top.tag:
                raise HtmlParseError(
                    f"Unmatched end tag at byte offset {_byte_offset(text, begin)}, "
                    f'expected "</{top.tag}>", found "</{end_name}>"'
                )
            lang = top.attrs.get("class", "")
            if top.tag == "code" and lang.startswith("language-") and stack and \
                    stack[-1].tag == "pre" and stack[-1].start == top.start:
                stack[-1].attrs["language"] = lang[len("language-"):]
                continue
            entity = _make_entity(top, out_len)
            if entity is not None:
                if top.tag == "pre" and top.attrs.get("language"):
                    entity["language"] = top.attrs["language"]
                entities.append(entity)
            continue
        name_start = i
        while i < n and not _is_space(text[i]) and text[i] != ">":
            i += 1
        if i >= n:
            raise HtmlParseError(f"Unclosed start tag at byte offset {_byte_offset(text, begin)}")
        tag = text[name_start:i].lower()
        if tag not in ALLOWED_TAGS:
            raise HtmlParseError(
                f'Unsupported start tag "{tag}" at byte offset {_byte_offset(text, begin)}'
            )
        attrs, i = _parse_attrs(text, i, tag, begin)
        if tag == "span" and attrs.get("class") != "tg-spoiler":
            raise HtmlParseError(
                f'Tag "span" must have class "tg-spoiler" '
                f"at byte offset {_byte_offset(text, begin)}"
            )
        if tag == "tg-time":
            # our wording: the fake does not know tdlib's exact messages for these two
            if not attrs.get("unix", "").isdigit():
                raise HtmlParseError(f'Tag "tg-time" needs a Unix time in "unix" '
                                     f"at byte offset {_byte_offset(text, begin)}")
            if not _DATE_TIME_FORMAT.fullmatch(attrs.get("format", "")):
                raise HtmlParseError(f'Invalid date-time format in the tag "tg-time" '
                                     f"at byte offset {_byte_offset(text, begin)}")
        stack.append(_Open(tag, out_len, attrs))
    if stack:
        raise HtmlParseError(f'Can\'t find end tag corresponding to start tag "{stack[-1].tag}"')
    entities.sort(key=lambda e: (e["offset"], -e["length"]))
    return "".join(out), entities


def check_html(text: str, *, strict_amp: bool = True) -> str | None:
    """Return ``None`` if ``text`` is valid Telegram HTML, else the explanation string."""
    try:
        parse_html(text, strict_amp=strict_amp)
    except HtmlParseError as exc:
        return str(exc)
    return None
