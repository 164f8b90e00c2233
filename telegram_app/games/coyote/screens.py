"""Coyote screens: the lobby, the group's table and a player's private view, and the 👀 alert.
Texts are Telegram HTML; every name goes through ``name_html``.

Hidden cards: the table shows only face-up cards; a private view (and the 👀 alert) is built
from the engine's view of that seat, which never holds a card hidden from it.
"""

from __future__ import annotations

from datetime import UTC
from typing import Any

from engine import GAMES
from engine.coyote import CoyoteGame
from engine.coyote.editions import MAX_BID
from league.store.snapshots import GameSnapshot, PlayerInfo
from telegram_app.games.coyote.words import (
    card_label,
    edition_name,
    legend_line,
    special_name,
    tally,
)
from telegram_app.i18n import _, format_moment, join_list, n_
from telegram_app.render import results
from telegram_app.render.common import (
    MESSAGE_LIMIT,
    mention_html,
    name_html,
    pace_text,
    plain_name,
    seat_label,
    time_html,
    visible_length,
)
from telegram_app.render.language import (
    for_chat,
    for_player,
    in_chat_language,
    in_reader_language,
    in_seat_language,
)
from telegram_app.render.lobby import lobby_body
from telegram_app.render.place import with_place
from telegram_app.render.tournament_table import heading_lines

ALERT_LIMIT = 200
TABLE_MOVES = 24  # the round's latest moves the table shows (a message holds 4096 characters)


def player_label(player: PlayerInfo) -> str:
    """A player's escaped name, with 🤖 and its level for a computer player."""
    return seat_label(player)


def options_line(game: GameSnapshot) -> str:
    """Edition, lives and special actions of a game, in one line."""
    edition = game.options.get("edition", "classic")
    lives = game.options.get("lives") or GAMES[game.kind].option_choices(game.options)["lives"][0]
    if CoyoteGame().specials_kind(game.options) is None:
        specials = _("no special actions")
    elif game.options.get("specials"):
        specials = _("special actions on")
    else:
        specials = _("special actions off")
    pace = pace_text(game.options.get("pace", "standard"))
    if edition == "poker-deck":  # its rules count penalty cards
        lives_text = _("the {n}th penalty card loses").format(n=lives)
    else:
        lives_text = n_("{n} life", "{n} lives", lives).format(n=lives)
    line = _("{edition} · {lives} · {specials} · {pace}").format(
        edition=edition_name(edition), lives=lives_text, specials=specials, pace=pace)
    if game.options.get("after_elimination") == "next":
        line += " · " + _("the next player starts after a knock-out")
    return line


@in_chat_language
def lobby_text(game: GameSnapshot, reachable: set[int]) -> str:
    """The lobby: options, players (🔕 marks those the bot cannot message yet), how to start."""
    lines = [_("🐺 <b>Coyote</b> — new game #{id}").format(id=game.id), options_line(game), ""]
    return "\n".join(lines + lobby_body(game, reachable))


@in_chat_language
def lobby_expired_text(game: GameSnapshot) -> str:
    """A lobby nobody started in time."""
    edition = game.options.get("edition", "classic")  # (the same edition again)
    command = "/newgame" if edition == "classic" else f"/newgame {edition}"
    return _("🐺 Game #{id} expired: nobody started it in time. Send {command} to open a new "
             "one.").format(id=game.id, command=command)


@in_reader_language
def lobby_closed_text(game: GameSnapshot) -> str:
    """The lobby after start or cancel (no buttons)."""
    if game.status == "cancelled":
        return _("🐺 Game #{id} was cancelled.").format(id=game.id)
    names = join_list(player_label(p) for p in game.players)
    return _("🐺 Game #{id} started with {names}.").format(id=game.id, names=names) + "\n" + \
        options_line(game)


SHOWN_BIDS = 8
"""The latest bids of a round that the table and private messages list: a long round must
not push a message past Telegram's length limit (its keyboard would go dead with it)."""


def _bids_line(game: GameSnapshot, state: dict[str, Any]) -> str:
    bids = state.get("bids") or []
    if not bids:
        return _("No bid yet.")
    parts = [f"{name_html(game.at_seat(seat))} {amount}" for seat, amount in bids[-SHOWN_BIDS:]]
    if len(bids) > SHOWN_BIDS:
        parts.insert(0, "…")
    return _("Bids: {bids}").format(bids=" → ".join(parts))


def _seat_lines(game: GameSnapshot, view: dict[str, Any], own: int | None) -> list[str]:
    """Per seat: pointer, name, lives (poker-deck: penalty cards taken), and the cards this
    view may see."""
    lines = []
    for player in game.seated:
        seat = player.seat or 0
        parts = [("👉 " if seat == view["turn"] else "") + player_label(player),
                 tally(view["lives"][seat], view["max_lives"], view["edition"])]
        if view["in_play"][seat]:
            cards = []
            card = view["cards"][seat]
            if card is not None:
                cards.append(f"<b>{card_label(card)}</b>")
            elif seat == own:
                cards.append(_("❓ (yours)"))
            cards += [f"<b>{card_label(c)}</b>" if c else "❓" for c in view["extra"][seat]]
            cards += [_("<b>{card}</b> face up").format(card=card_label(c))
                      for c in view["face_up"][seat]]
            if cards:
                parts.append("· " + " + ".join(cards))
            if view["safe"][seat]:  # (Japanese writes no space before its 「（」: 8（セーフ）)
                safe = _("(safe)")
                parts[-1] += safe if safe.startswith("（") else " " + safe
        lines.append(" ".join(parts))
    return lines


def legend(game: GameSnapshot, view: dict[str, Any]) -> list[str]:
    """The line saying what the special cards this view shows do (none without one): a
    message that shows such a card explains it on the spot."""
    codes = [c for player in game.seated if view["in_play"][player.seat or 0]
             for c in (view["cards"][player.seat or 0], *view["extra"][player.seat or 0],
                       *view["face_up"][player.seat or 0])]
    line = legend_line(codes, view["edition"])
    return [line] if line else []


def status_lines(game: GameSnapshot, view: dict[str, Any]) -> list[str]:
    lines = []
    if view["direction"] == -1:
        lines.append(_("↩️ Play goes the other way this round."))
    if view["change"]:
        target = name_html(game.at_seat(view["change"]["target"]))
        if view["change_may_call"]:
            lines.append(_("🎭 Change: {name} must raise their bid or call Coyote on the bid "
                           "before it.").format(name=target))
        else:
            lines.append(_("🎭 Change: {name} must raise their bid.").format(name=target))
    if view["double"] is not None:
        lines.append(_("🎭 The last bid is doubled: if the next player calls Coyote on it, "
                       "the loser loses two lives."))
    if view["specials"] == "coins" and view["coins"] and view["coins_usable"]:
        lines.append(_("🪙 Coins left: {coins}").format(coins=join_list(
            special_name(c) for c in view["coins"])))
    return lines


@in_chat_language
def table_text(game: GameSnapshot, *, mention: bool = False,
               moves: list[str] | None = None, opening: list[str] | None = None) -> str:
    """The group's table message of the current round: seats, lives, face-up cards and the
    specials in force; with ``mention``, the player to act (as a mention: the new message of
    a round notifies them), who opens the round unless a computer opened it already.
    ``moves`` (the round's moves as lines) makes it the live table of a quiet group, edited
    in place as the round's moves happen (README, "Message economy"):
    it then shows them, whose turn it is and the clock, and ``opening`` under its heading (the
    showdown that ended the round before). Without, moves are told by notes and the table is
    edited only when what it shows changes."""
    state = game.state or {}
    view = GAMES[game.kind].view(state, None)
    live = moves is not None
    lines = [*heading_lines(game),
             _("🐺 Game #{id} · round {round}").format(id=game.id, round=view["round"]), ""]
    if opening:
        lines += [*opening, ""]
    lines += _seat_lines(game, view if live else {**view, "turn": None}, None)
    tail: list[str] = []
    status = status_lines(game, view)
    if status:
        tail += ["", *status]
    if view["over"]:
        tail.append(_("The game is over."))
    elif view["turn"] is not None and (mention or live):
        player = game.at_seat(view["turn"])
        if mention and not state.get("bids"):
            tail += ["", _("{name} opens the round.").format(name=mention_html(player))]
        else:  # (a new table whose round a computer opened names its player to act too)
            tail += ["", _("Waiting for {name}.").format(
                name=(mention_html if mention else name_html)(player))]
        clock = clock_line(game) if live else ""
        if clock:
            tail.append(clock)
    tail.append(_("🎴 shows you the others' cards and your moves here; our private chat has "
                  "them too."))
    if moves:  # the latest that fit: the heading, seats and turn are never cut
        room = MESSAGE_LIMIT - visible_length("\n".join([*lines, *tail])) - 6
        shown = moves[-TABLE_MOVES:]
        while shown and visible_length("\n".join(shown)) > room:
            shown = shown[1:]
        lines += ["", *(["…"] if len(shown) < len(moves) else []), *shown]
    return "\n".join([*lines, *tail])


def clock_line(game: GameSnapshot) -> str:
    """The turn's clock: paused, or the deadline (in each reader's time zone where their
    client shows date-time entities, else in UTC)."""
    if game.paused:
        return _("⏸ The clock is paused (/resume).")
    if game.deadline_at is None:
        return ""
    return _("⏱ Turn ends {time}.").format(time=time_html(
        game.deadline_at, "dt", format_moment(game.deadline_at.astimezone(UTC)) + " UTC"))


@in_seat_language
def private_text(game: GameSnapshot, seat: int, *, in_group: bool = False) -> str:
    """A player's private view, under the group (and topic) it is in: the others' cards (never
    their own hidden ones), bids, lives, specials in force, and what they may do on their
    turn. ``in_group``: shown in the group by 🎴, where no heading is needed and typed bids
    do not arrive, and, off-turn, only the cards (the table shows the bids)."""
    state = game.state or {}
    view = GAMES[game.kind].view(state, seat)
    lines = [*heading_lines(game),
             _("🐺 Game #{id} · round {round}").format(id=game.id, round=view["round"]), ""]
    lines += _seat_lines(game, view, seat) + legend(game, view)
    if in_group and view["turn"] != seat:  # (what changes with each move is on the table
        # just above, kept current; this view is edited only when the cards or turn do)
        return "\n".join([*lines, "", _("The table above shows the bids; your buttons come "
                                         "here on your turn.")])
    lines += ["", _bids_line(game, state)] + status_lines(game, view)
    if view["turn"] == seat:
        if view["min_bid"] > MAX_BID:  # the highest bid closes the bidding
            lines += ["", _("<b>Your turn:</b> nobody may bid higher: call Coyote!")]
        elif view["change"] and view["change"]["target"] == seat and view["can_call"]:
            lines += ["", _("<b>Your turn:</b> raise your bid to {min} or more, or call Coyote "
                            "on the bid before it.").format(min=view["min_bid"])]
        elif view["change"] and view["change"]["target"] == seat:
            lines += ["", _("<b>Your turn:</b> raise your bid to {min} or more.").format(
                min=view["min_bid"])]
        elif view["must_bid"] or not view["can_call"]:
            lines += ["", (_("<b>Your turn:</b> bid {min} or more.") if in_group else _(
                "<b>Your turn:</b> bid {min} or more (you can also type any number here)."
            )).format(min=view["min_bid"])]
        else:
            lines += ["", _("<b>Your turn:</b> bid {min} or more, or call Coyote!").format(
                min=view["min_bid"])]
        if clock := clock_line(game):
            lines.append(clock)
    elif view["turn"] is not None:
        lines += ["", _("Waiting for {name}.").format(name=name_html(game.at_seat(view["turn"])))]
    return "\n".join(lines) if in_group else with_place(game, "\n".join(lines))


def private_closed_text(game: GameSnapshot, round_no: int, *,
                        reader: PlayerInfo | None = None) -> str:
    """A player's old private message once its round is over (under its group's name), in
    ``reader``'s language (without one, the group's): a player the round knocked out is told
    so (the others play on). Once the game is over, the last one says where ``reader`` came
    and their Elo change (``results.own_result``), not "see the group"."""
    with for_player(game, reader) if reader is not None else for_chat(game):
        result = results.own_result(game, reader)
        if result is None and reader is not None and not reader.playing:
            text = _("🐺 Game #{id} · you are out after round {round}: the others play on "
                     "in the group, and your place comes with the end.").format(
                id=game.id, round=round_no)
        elif result is None:
            text = _("🐺 Game #{id} · round {round} is over (see the group).").format(
                id=game.id, round=round_no)
        elif result[2] is None:
            text = _("🐺 Game #{id} is over: you came {place} of {count}.").format(
                id=game.id, place=result[0], count=result[1])
        else:
            text = _("🐺 Game #{id} is over: you came {place} of {count} (Elo {change})."
                     ).format(id=game.id, place=result[0], count=result[1], change=result[2])
        return with_place(game, text)


def private_cancelled_text(game: GameSnapshot, *, reader: PlayerInfo | None) -> str:
    """A player's private message of a game that was cancelled (under its group's name), in
    ``reader``'s language."""
    return with_place(game, lobby_closed_text(game, reader=reader))


@in_seat_language
def peek_alert(game: GameSnapshot, seat: int) -> str:
    """The 👀 alert: the cards ``seat`` may see, in plain text within 200 characters."""
    view = GAMES[game.kind].view(game.state or {}, seat)
    entries = []
    for s in range(view["seats"]):
        cards = [view["cards"][s]] + view["extra"][s] + view["face_up"][s]
        shown = [card_label(c) for c in cards if c is not None]
        if shown:
            entries.append((game.at_seat(s).name, "+".join(shown)))
    header = _("Cards you can see:")
    text = header
    for limit in (24, 16, 12, 8, 5, 3, 1):
        text = header + "\n" + "\n".join(f"{plain_name(n, limit)}: {c}" for n, c in entries)
        if len(text) <= ALERT_LIMIT:
            return text
    return text[:ALERT_LIMIT]
