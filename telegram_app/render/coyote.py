"""Coyote messages: lobby, the group's table, a player's private view, turn announcements, the
showdown and the final result. Texts are Telegram HTML; every name goes through ``name_html``.

Hidden cards: the table and announcements never show a card in play; a private view shows every
card but the viewer's own; the showdown shows the cards only once they are revealed.
"""

from __future__ import annotations

from typing import Any

from engine import GAMES
from league.snapshots import GameSnapshot
from telegram_app.i18n import _
from telegram_app.render.common import (
    card_label,
    hearts,
    mention_html,
    name_html,
    plain_name,
)

ALERT_LIMIT = 200


def lobby_text(game: GameSnapshot, reachable: set[int]) -> str:
    """The lobby: edition, players (⚠️ marks those the bot cannot message yet) and the rules for
    starting."""
    edition = game.options.get("edition", "classic")
    low, high = GAMES[game.kind].player_limits(game.options)
    lines = [_("🐺 <b>Coyote</b> ({edition}) — new game #{id}").format(edition=edition, id=game.id),
             ""]
    for n, player in enumerate(game.players, start=1):
        mark = "" if player.user_id in reachable else " ⚠️"
        lines.append(f"{n}. {name_html(player)}{mark}")
    lines.append("")
    lines.append(_("Players: {n} (from {min} to {max}).").format(
        n=len(game.players), min=low, max=high))
    if any(p.user_id not in reachable for p in game.players if not p.is_ai):
        lines.append(_("⚠️ I cannot message you privately yet: tap “Private chat” and press "
                       "Start, so I can show you the cards."))
    lines.append(_("The player who opened the lobby starts the game."))
    return "\n".join(lines)


def lobby_closed_text(game: GameSnapshot) -> str:
    """The lobby after start or cancel (no buttons)."""
    names = ", ".join(name_html(p) for p in game.players)
    if game.status == "cancelled":
        return _("🐺 Game #{id} was cancelled.").format(id=game.id)
    return _("🐺 Game #{id} started with {names}.").format(id=game.id, names=names)


def _bids_line(game: GameSnapshot) -> str:
    state = game.state or {}
    if not state.get("bids"):
        return _("No bid yet.")
    parts = [f"{name_html(game.at_seat(seat))} {amount}" for seat, amount in state["bids"]]
    return _("Bids: {bids}").format(bids=" → ".join(parts))


def _lives_lines(game: GameSnapshot) -> list[str]:
    state = game.state or {}
    turn = state.get("turn") if not state.get("over") else None
    lines = []
    for player in game.seated:
        pointer = "👉 " if player.seat == turn else ""
        lines.append(f"{pointer}{name_html(player)} {hearts(state['lives'][player.seat])}")
    return lines


def table_text(game: GameSnapshot) -> str:
    """The group's table message for the current round: turn, last bid, bids, lives."""
    state = game.state or {}
    lines = [_("🐺 Game #{id} · round {round}").format(id=game.id, round=state.get("round", 0)),
             ""]
    lines += _lives_lines(game)
    lines += ["", _bids_line(game)]
    if state.get("over"):
        lines.append(_("The game is over."))
    elif state.get("turn") is not None:
        player = game.at_seat(state["turn"])
        if state.get("bids"):
            lines.append(_("{name} to play: bid {min} or more, or call Coyote!").format(
                name=name_html(player), min=state["bids"][-1][1] + 1))
        else:
            lines.append(_("{name} to open the bidding.").format(name=name_html(player)))
    lines.append(_("👀 shows you the others' cards."))
    return "\n".join(lines)


def table_closed_text(game: GameSnapshot, round_no: int) -> str:
    """An old table message once its round is over."""
    return _("🐺 Game #{id} · round {round} is over.").format(id=game.id, round=round_no)


def private_text(game: GameSnapshot, seat: int) -> str:
    """A player's private view: the others' cards (never their own), bids, lives, turn."""
    state = game.state or {}
    view = GAMES[game.kind].view(state, seat)
    lines = [_("🐺 Game #{id} · round {round}").format(id=game.id, round=view["round"]), "",
             _("Cards you can see:")]
    for player in game.seated:
        if player.seat == seat:
            lines.append(_("{name}: ❓ (your card)").format(name=name_html(player)))
        elif view["cards"][player.seat] is not None:
            lines.append(f"{name_html(player)}: <b>{card_label(view['cards'][player.seat])}</b>")
    lines += ["", _bids_line(game), ""]
    lines += _lives_lines(game)
    if view["turn"] == seat:
        if view["can_call"]:
            lines += ["", _("<b>Your turn:</b> bid {min} or more, or call Coyote!").format(
                min=view["min_bid"])]
        else:
            lines += ["", _("<b>Your turn:</b> open the bidding (1 or more). You can also type "
                            "any number here.")]
    elif view["turn"] is not None:
        lines += ["", _("Waiting for {name}.").format(name=name_html(game.at_seat(view["turn"])))]
    return "\n".join(lines)


def private_closed_text(game: GameSnapshot, round_no: int) -> str:
    """A player's old private message once its round is over."""
    return _("🐺 Game #{id} · round {round} is over; the cards are in the group.").format(
        id=game.id, round=round_no)


def peek_alert(game: GameSnapshot, seat: int) -> str:
    """The 👀 alert: the other players' cards, in plain text within 200 characters."""
    state = game.state or {}
    view = GAMES[game.kind].view(state, seat)
    entries = [(game.at_seat(s).name, card_label(c)) for s, c in enumerate(view["cards"])
               if c is not None]
    header = _("Cards you can see:")
    for limit in (24, 16, 12, 8, 5, 3, 1):
        text = header + "\n" + "\n".join(f"{plain_name(n, limit)}: {c}" for n, c in entries)
        if len(text) <= ALERT_LIMIT:
            return text
    return text[:ALERT_LIMIT]


def announce_text(game: GameSnapshot, events: list[dict[str, Any]]) -> str | None:
    """The group's short note after a bid: who bid what and who plays next (a mention)."""
    bid = next((e for e in events if e["type"] == "bid_placed"), None)
    state = game.state or {}
    if bid is None or state.get("turn") is None:
        return None
    return _("{name} bids <b>{amount}</b>. ➡️ {next}, your turn.").format(
        name=name_html(game.at_seat(bid["seat"])), amount=bid["amount"],
        next=mention_html(game.at_seat(state["turn"])))


def round_start_text(game: GameSnapshot) -> str:
    """The group's note at the start of a round, mentioning the starting player."""
    state = game.state or {}
    return _("🃏 Round {round}: new cards are dealt. {name}, you open the bidding.").format(
        round=state["round"], name=mention_html(game.at_seat(state["turn"])))


EFFECTS = {
    "draws": lambda: _("turns up the top card"),
    "draws_nothing": lambda: _("finds no card to turn up (counts 0)"),
    "replaced": lambda: _("is replaced by an undealt card"),
    "zeroed": lambda: _("counts 0 (MAX→0)"),
    "negated": lambda: _("counts negative (MAX→−)"),
    "removed": lambda: _("is removed by K"),
    "doubled": lambda: _("doubled"),
    "doubles": lambda: _("doubles the total"),
    "counts_zero": lambda: _("counts 0"),
    "reshuffles": lambda: _("counts 0; every card is reshuffled after this round"),
}


def showdown_text(game: GameSnapshot, showdown: dict[str, Any]) -> str:
    """The revealed table: every card with what it did, the total, the bid and the loser."""
    caller = game.at_seat(showdown["caller"])
    bidder = game.at_seat(showdown["bidder"])
    lines = [_("🐺 {caller} calls <b>Coyote!</b> on {bidder}'s bid of {bid}.").format(
        caller=name_html(caller), bidder=name_html(bidder), bid=showdown["bid"]), ""]
    table_seats = list(showdown["seats"])
    for i, card in enumerate(showdown["cards"]):
        who = (name_html(game.at_seat(table_seats[i])) if i < len(table_seats)
               else _("drawn"))
        effects = ", ".join(EFFECTS[e]() for e in card["effects"] if e in EFFECTS)
        value = f" → {card['value']}" if card["face"] is not None and card["value"] != card[
            "face"] else ""
        note = f" ({effects})" if effects else ""
        lines.append(f"{who}: <b>{card_label(card['card'])}</b>{value}{note}")
    lines += ["", _("Total: <b>{total}</b> · bid: {bid}").format(total=showdown["total"],
                                                                  bid=showdown["bid"])]
    if showdown["loser"] is None:
        lines.append(_("The total equals the bid: nobody is penalised."))
    else:
        loser = game.at_seat(showdown["loser"])
        lives = (game.state or {})["lives"][loser.seat]
        if showdown["loser"] == showdown["caller"]:
            lines.append(_("The bid was good: {name} loses a life ({hearts}).").format(
                name=name_html(loser), hearts=hearts(lives)))
        else:
            lines.append(_("The bid was too high: {name} loses a life ({hearts}).").format(
                name=name_html(loser), hearts=hearts(lives)))
        if lives == 0:
            lines.append(_("💀 {name} is out of the game.").format(name=name_html(loser)))
    return "\n".join(lines)


def game_over_text(game: GameSnapshot) -> str:
    """The final placements and the winner(s)."""
    places = GAMES[game.kind].placements(game.state or {}) or []
    order = sorted(game.seated, key=lambda p: places[p.seat or 0])
    medals = {1: "🥇", 2: "🥈", 3: "🥉"}
    lines = [_("🏁 Game #{id} is over!").format(id=game.id), ""]
    for player in order:
        place = places[player.seat or 0]
        lines.append(f"{medals.get(place, f'{place}.')} {name_html(player)}")
    winners = [mention_html(p) for p in order if places[p.seat or 0] == 1]
    lines += ["", _("🏆 Winner: {names}").format(names=", ".join(winners))]
    return "\n".join(lines)
