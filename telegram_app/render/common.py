"""Pieces every message uses: safe names, mentions, cards, lives and error alerts."""

from __future__ import annotations

from datetime import datetime
from html import escape
from typing import Any

from league.snapshots import PlayerInfo
from telegram_app.i18n import _

FSI, PDI = "\u2068", "\u2069"  # isolate a name so right-to-left text cannot reorder the line
MAX_NAME = 48


BIDI_CONTROLS = dict.fromkeys(map(ord, "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"))
"""Embeddings, overrides and isolates: inside a name they could close its isolate early and
reorder the rest of the line (a bid of 12 shown as 21)."""


def plain_name(name: str, limit: int = MAX_NAME) -> str:
    """A display name cut to ``limit`` characters and isolated for bidi (its own bidi
    controls dropped); not escaped."""
    name = " ".join(name.translate(BIDI_CONTROLS).split()) or "?"
    if len(name) > limit:
        name = name[: max(1, limit - 1)] + "…"
    return f"{FSI}{name}{PDI}"


def name_html(player: PlayerInfo) -> str:
    """A player's name, escaped for Telegram HTML."""
    return escape(plain_name(player.name), quote=False)


def mention_html(player: PlayerInfo) -> str:
    """A link that mentions the player (notifies them) when sent in a new message."""
    if player.user_id is None:
        return name_html(player)
    return f'<a href="tg://user?id={player.user_id}">{name_html(player)}</a>'


def time_html(moment: datetime, fmt: str, fallback: str) -> str:
    """A Bot API date-time entity: clients that know it show ``moment`` in the reader's own
    time zone and locale (``fmt``: "Date-time entity formatting", ``r|w?[dD]?[tT]?``); older
    ones show ``fallback`` (escaped here). ``moment`` must be timezone-aware."""
    return (f'<tg-time unix="{int(moment.timestamp())}" format="{fmt}">'
            f"{escape(fallback, quote=False)}</tg-time>")


def card_label(card: str) -> str:
    """A card in rules notation as players see it (``"-5"`` → ``"−5"``, ``"x2"`` → ``"×2"``)."""
    specials = {
        "x2": "×2", "max0": _("MAX→0"), "?": "?", "night": _("🌙 night"),
        "max-": _("MAX→−"), "0b": _("blue 0"),
    }
    if card in specials:
        return specials[card]
    return card.replace("-", "−")


def edition_name(edition: str) -> str:
    """An edition's name as players read it (typed, it stays ``/newgame feathers``)."""
    names = {"classic": _("classic"), "feathers": _("feathers"), "poker-deck": _("poker-deck")}
    return names.get(edition, edition)


def special_name(name: str) -> str:
    """A mask's or coin's name as players see it."""
    names = {
        "pass": _("Pass"), "double": _("Double"), "reverse": _("Reverse"),
        "draw1": _("Draw 1"), "change": _("Change"), "shot": _("Shot"),
        "extra": _("Extra feather"), "skip": _("Skip"), "swap": _("Swap"), "guess": _("Guess"),
    }
    return names.get(name, name)


def hearts(lives: int | None) -> str:
    """Lives as hearts, or a skull once out."""
    if not lives:
        return "💀"
    return "❤️" * lives



def error_text(code: str, detail: dict[str, Any] | None = None) -> str:
    """A short, polite alert (≤ 200 characters) for a refused request's code."""
    detail = detail or {}
    messages = {
        "game_not_found": _("This game no longer exists."),
        "game_open": _("A game is already open in this chat — see the pinned lobby above."),
        "not_in_lobby": _("This game has already started or ended."),
        "not_running": _("This game is not running any more."),
        "already_joined": _("You have already joined."),
        "game_full": _("The table is full ({max} players).").format(max=detail.get("max", "")),
        "not_joined": _("You are not in this lobby."),
        "not_creator": _("Only the host (who opened the lobby) can do that."),
        "bad_option": _("That option is not available."),
        "bad_timezone": _("Unknown time zone: use a name like Europe/Berlin or "
                          "America/Sao_Paulo."),
        "no_ai": _("There is no computer player to remove."),
        "too_few_players": _("At least {min} players are needed to start.").format(
            min=detail.get("min", "")),
        "bad_player_count": _("This edition is for {min}–{max} players.").format(
            min=detail.get("min", ""), max=detail.get("max", "")),
        "bad_lives": _("This edition allows {min}–{max} lives.").format(
            min=detail.get("min", ""), max=detail.get("max", "")),
        "unknown_edition": _("Unknown edition."),
        "already_paused": _("The clock is already paused; /resume restarts it."),
        "not_paused": _("The clock is not paused."),
        "lives_need_fewer_players": _(
            "{lives} lives are only for tables of up to {max} players: change the lives "
            "option, then start.").format(lives=detail.get("lives", ""),
                                          max=detail.get("max", "")),
        "not_a_player": _("You are not playing in this game."),
        "stale": _("That button is out of date — the game has moved on."),
        "typed_too_early": _("That number was sent before this round began, so I did not "
                             "bid it. Type it again if you still mean it."),
        "already_handled": _("That was done already."),
        "not_allowed": _("Only the host or a chat admin can do that."),
        "cancel_running": _("Once a game is running, only a chat admin can cancel it, so that "
                            "it still counts for the league. To quit, send /leave."),
        "special_not_available": _("That special action is not available."),
        "mask_used": _("You have already used your mask this round."),
        "draw1_used": _("Draw 1 has already been used this round."),
        "bad_target": _("Choose another player."),
        "pass_blocked": _("You cannot pass right after a pass."),
        "nothing_to_change": _("There is no bid of another player to change."),
        "must_answer_change": _("First raise your bid or call Coyote on the bid before it."),
        "coin_used": _("That coin has already been used this round."),
        "one_coin_per_turn": _("One coin per turn."),
        "coins_two_players": _("Coins cannot be used once only two players remain."),
        "guess_not_allowed": _("Guessing now would leave too few players in the round."),
        "no_card_to_draw": _("There is no card left to draw."),
        "must_bid": _("You must bid now (no Coyote call this turn)."),
        "own_bid": _("You cannot call Coyote on your own bid."),
        "bid_too_high": _("I take bids up to {max}; call Coyote instead.").format(
            max=detail.get("max", "")),
        "not_your_turn": _("It is not your turn."),
        "bid_too_low": _("Your bid must be at least {min_bid}.").format(
            min_bid=detail.get("min_bid", "")),
        "no_bid_to_call": _("Nobody has bid yet: the first player must bid."),
        "game_over": _("This game is over."),
        "bad_action": _("That move is not allowed."),
        "bad_button": _("That button is not valid."),
    }
    return messages.get(code, _("That cannot be done right now."))


MESSAGE_LIMIT = 4000  # Telegram allows 4096 characters; keep room for entities


def fit_lines(lines: list[str], limit: int = MESSAGE_LIMIT, *, keep: str = "last") -> str:
    """Join whole lines into one message of at most ``limit`` characters, dropping the
    oldest lines (``keep="last"``) or the newest (``keep="first"``) behind a "…" line, so no
    HTML tag is ever cut in half."""
    text = "\n".join(lines)
    if len(text) <= limit:
        return text
    kept: list[str] = []
    size = 2
    for line in (reversed(lines) if keep == "last" else lines):
        if size + len(line) + 1 > limit:
            break
        kept.append(line)
        size += len(line) + 1
    if keep == "last":
        return "\n".join(["…", *reversed(kept)])
    return "\n".join([*kept, "…"])
