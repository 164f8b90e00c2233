"""Inline keyboards: the lobby's, the table's and a player's private one."""

from __future__ import annotations

from telegram import InlineKeyboardButton, InlineKeyboardMarkup

from league.snapshots import GameSnapshot
from telegram_app.callbacks import Callback
from telegram_app.i18n import _

BIDS_SHOWN = 8
BIDS_PER_ROW = 4


def deep_link(bot_username: str, game_id: int) -> str:
    """``https://t.me/<bot>?start=g<id>``: opens the private chat and sends ``/start g<id>``."""
    return f"https://t.me/{bot_username}?start=g{game_id}"


def lobby_keyboard(game: GameSnapshot, bot_username: str | None) -> InlineKeyboardMarkup:
    """Join / Leave / Start, and a deep link to the private chat."""
    rows = [[
        InlineKeyboardButton(_("✋ Join"), callback_data=Callback("j", game.id).encode()),
        InlineKeyboardButton(_("🚪 Leave"), callback_data=Callback("l", game.id).encode()),
    ], [InlineKeyboardButton(_("▶️ Start"), callback_data=Callback("s", game.id).encode())]]
    if bot_username:
        rows[1].append(InlineKeyboardButton(_("💬 Private chat"),
                                            url=deep_link(bot_username, game.id)))
    return InlineKeyboardMarkup(rows)


def move_rows(game: GameSnapshot, first: int | None = None) -> list[list[InlineKeyboardButton]]:
    """The current player's buttons: eight bids from ``first`` (default: the lowest legal bid),
    paging arrows to reach any higher bid, and Coyote! once a bid stands."""
    state = game.state or {}
    if state.get("over") or state.get("turn") is None:
        return []
    low = state["bids"][-1][1] + 1 if state["bids"] else 1
    first = max(low, first or low)
    bids = [InlineKeyboardButton(str(n), callback_data=Callback("b", game.id, game.version,
                                                                n).encode())
            for n in range(first, first + BIDS_SHOWN)]
    rows = [bids[i:i + BIDS_PER_ROW] for i in range(0, len(bids), BIDS_PER_ROW)]
    paging = []
    if first > low:
        back = max(low, first - BIDS_SHOWN)
        paging.append(InlineKeyboardButton("◀", callback_data=Callback(
            "m", game.id, game.version, back).encode()))
    paging.append(InlineKeyboardButton(_("Higher ▶"), callback_data=Callback(
        "m", game.id, game.version, first + BIDS_SHOWN).encode()))
    rows.append(paging)
    if state["bids"]:
        rows.append([InlineKeyboardButton(_("🐺 Coyote!"), callback_data=Callback(
            "c", game.id, game.version).encode())])
    return rows


def table_keyboard(game: GameSnapshot, first: int | None = None) -> InlineKeyboardMarkup:
    """The group table: 👀 plus the current player's moves (only they may press them)."""
    rows = [[InlineKeyboardButton(_("👀 See the cards"),
                                  callback_data=Callback("p", game.id).encode())]]
    return InlineKeyboardMarkup(rows + move_rows(game, first))


def private_keyboard(game: GameSnapshot, seat: int,
                     first: int | None = None) -> InlineKeyboardMarkup | None:
    """A player's moves in their private chat, only on their turn."""
    state = game.state or {}
    if state.get("turn") != seat or state.get("over"):
        return None
    return InlineKeyboardMarkup(move_rows(game, first))
