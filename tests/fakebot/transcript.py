"""Readable plain-text transcripts of what happened in a chat on the fake Bot API.

Example output::

    === Game night ===
    Alice: /newgame
    🤖 (msg 2) A new game is open!
       Players: Alice
       [Join] [Leave]
    Bob pressed [Join]
    (answer to Bob: You joined)
    ✎ (msg 2) A new game is open!
       Players: Alice, Bob
       [Join] [Leave]
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .models import LogEntry

if TYPE_CHECKING:
    from .server import FakeBotAPI

INDENT = "   "


def _block(head: str, text: str | None, buttons: list[list[str]]) -> list[str]:
    """``head`` followed by the first text line, further lines and button rows indented."""
    lines = (text or "").split("\n")
    out = [f"{head}{lines[0]}".rstrip()]
    out += [f"{INDENT}{line}".rstrip() for line in lines[1:]]
    out += [INDENT + " ".join(f"[{label}]" for label in row) for row in buttons if row]
    return out


def render_entry(entry: LogEntry, *, brief_edits: bool = False,
                 before: str | None = None) -> list[str]:
    """Render one log entry as transcript lines (``brief_edits``: an edit as one line: its
    first line not in ``before``, the message's text before the edit, if known)."""
    ref = f"(msg {entry.message_id}) " if entry.ephemeral_id is None else \
        f"(ephemeral {entry.ephemeral_id}) "
    if brief_edits and entry.kind == "edit":
        lines = (entry.text or "[buttons changed]").splitlines()
        if len(lines) > 1 and lines[0].startswith("👥 "):  # a private message's group line
            lines = lines[1:]
        def plain(line: str) -> str:  # (the 👉 of whose turn moves without news)
            return line.replace("👉 ", "")
        old = {plain(line) for line in (before or "").splitlines()}
        new = [line for line in lines if line.strip() and plain(line) not in old]
        return [f"✎ {ref}{(new or lines)[0]} …"]
    if entry.kind == "user":
        return _block(f"{entry.actor}: ", entry.text, [])
    if entry.kind == "send":
        return _block(f"🤖 {ref}", entry.text, entry.buttons)
    if entry.kind == "photo":
        return _block(f"🤖 📷 {ref}", entry.text or "[photo]", entry.buttons)
    if entry.kind == "edit":
        if entry.text == "":  # reply-markup-only edit
            if not entry.buttons:
                return [f"✎ {ref}[buttons removed]"]
            return _block(f"✎ {ref}", "[buttons changed]", entry.buttons)
        return _block(f"✎ {ref}", entry.text, entry.buttons)
    if entry.kind == "delete":
        return [f"🗑 {ref}deleted"]
    if entry.kind == "topic":
        return [f"🗂 {ref}topic created: {entry.text}"]
    if entry.kind == "press":
        return [f"{entry.actor} pressed [{entry.text}]"]
    if entry.kind == "answer":
        if not entry.text:
            return []
        what = "alert" if entry.show_alert else "answer"
        return _block(f"({what} to {entry.actor}: ", f"{entry.text})", [])
    return [f"? {entry.kind} {ref}{entry.text}"]


INVISIBLE = {0x2068: None, 0x2069: None}


def render_transcript(api: FakeBotAPI, chat_id: int, title: str | None = None, *,
                      brief_edits: bool = False, viewer: int | None = None) -> str:
    """A readable plain-text log of one chat: user messages as ``Name: text``, bot
    messages as ``🤖 text`` with ``[Button]`` rows, edits as ``✎ (msg N) text``, deletions,
    button presses and non-empty callback answers. ``brief_edits`` shows each edit as one
    line: the first it added. Ephemeral messages (``(ephemeral N)``) are shown only in the
    transcript of their receiver, ``viewer``."""
    lines: list[str] = []
    if title:
        lines.append(f"=== {title} ===")
    texts: dict[int | None, str] = {}  # message id -> its text so far
    for entry in api.log:
        if entry.chat_id == chat_id and entry.seen_by(viewer):
            lines.extend(render_entry(entry, brief_edits=brief_edits,
                                      before=texts.get(entry.message_id)))
            if entry.kind in ("send", "edit") and entry.text:
                texts[entry.message_id] = entry.text
    # Telegram clients draw bidi isolation marks as nothing; terminals often draw boxes.
    return "\n".join(lines).translate(INVISIBLE) + "\n"
