"""Coyote events as group messages: bids, special actions, showdowns, the end of a round and
of the game. Events hold only public facts; a card appears here only once it is face up."""

from __future__ import annotations

from typing import Any

from engine import GAMES
from engine.coyote.editions import get_edition
from league.snapshots import GameSnapshot
from telegram_app.games.coyote.words import card_label, hearts, special_name
from telegram_app.i18n import _, n_
from telegram_app.render import results
from telegram_app.render.common import mention_html, name_html


def _bid_line(game: GameSnapshot, event: dict[str, Any]) -> str:
    name = name_html(game.at_seat(event["seat"]))
    special = event.get("special")
    if special == "double":
        return _("{name} bids <b>{amount}</b> with 🎭 Double: if the next player calls "
                 "Coyote on it, the loser loses two lives.").format(name=name,
                                                                   amount=event["amount"])
    if special == "draw1":
        return _("{name} bids <b>{amount}</b> with 🎭 Draw 1: {target} takes an extra card.") \
            .format(name=name, amount=event["amount"],
                    target=name_html(game.at_seat(event["target"])))
    if special == "shot":
        return _("{name} bids <b>{amount}</b> with 🎭 Shot: {target} plays next.").format(
            name=name, amount=event["amount"], target=name_html(game.at_seat(event["target"])))
    return _("{name} bids <b>{amount}</b>.").format(name=name, amount=event["amount"])


def _special_line(game: GameSnapshot, event: dict[str, Any]) -> str:
    name = name_html(game.at_seat(event["seat"]))
    special = event["special"]
    if special == "extra":
        return _("🪙 {name} turns the Extra feather coin: <b>{card}</b> lies face up in front "
                 "of them.").format(name=name, card=card_label(event["card"]))
    if special == "guess" and event.get("right"):
        return _("🪙 {name} guesses their card is <b>{card}</b>: right! They are safe this "
                 "round.").format(name=name, card=card_label(event["guess"]))
    if special == "guess":
        return _("🪙 {name} guesses <b>{guess}</b>, but it is <b>{card}</b>: they lose a life "
                 "and the round ends.").format(name=name, guess=card_label(event["guess"]),
                                               card=card_label(event["card"]))
    voided = (" " + _("The Double on the last bid no longer counts.")
              if event.get("double_voided") else "")
    if special == "change":
        state = game.state or {}
        if "target" in event:
            target, may_call = name_html(game.at_seat(event["target"])), event["may_call"]
        else:  # logged before the event said it: the state right after the Change does
            bids = state.get("bids") or []
            target = name_html(game.at_seat(bids[-1][0])) if bids else "?"
            may_call = bool(state) and GAMES[game.kind].view(state, None)["change_may_call"]
        if may_call:
            return _("🎭 {name} uses Change: {target} must raise their bid or call Coyote on "
                     "the bid before it.").format(name=name, target=target) + voided
        return _("🎭 {name} uses Change: {target} must raise their bid.").format(
            name=name, target=target) + voided
    icon = "🪙" if special in ("skip", "swap", "extra", "guess") or (
        special == "reverse" and game.options.get("edition") == "feathers") else "🎭"
    return _("{icon} {name} uses {special}.").format(icon=icon, name=name,
                                                    special=special_name(special)) + voided


def step_lines(game: GameSnapshot, events: list[dict[str, Any]]) -> list[str]:
    """One line per public event of a move that is not a showdown."""
    lines = []
    for event in events:
        kind = event["type"]
        if kind == "bid_placed":
            lines.append(_bid_line(game, event))
        elif kind == "bid_changed":
            lines.append(_("{name} changes their bid to <b>{amount}</b>.").format(
                name=name_html(game.at_seat(event["seat"])), amount=event["amount"]))
        elif kind == "special_used":
            lines.append(_special_line(game, event))
        elif kind == "turn_timed_out" and event["removed"]:
            lines.append(_("⏰ {name} ran out of time and is removed from the game (placed "
                           "last among those still playing).").format(
                name=name_html(game.at_seat(event["seat"]))))
        elif kind == "turn_timed_out":
            lines.append(_("⏰ {name} ran out of time: the computer plays this turn for them.")
                         .format(name=name_html(game.at_seat(event["seat"]))))
        elif kind == "player_removed" and not any(
                e["type"] == "turn_timed_out" for e in events):
            lines.append(_("🚪 {name} leaves the game (placed last among those still "
                           "playing).").format(name=name_html(game.at_seat(event["seat"]))))
    return lines


def round_heading(round_no: int) -> str:
    """The line that starts a new round's moves inside a longer report."""
    return _("🔹 Round {round}").format(round=round_no)


def turn_line(game: GameSnapshot) -> str | None:
    """``➡️ @next, your turn.`` (a mention), or ``None`` when nobody is to act."""
    state = game.state or {}
    if state.get("over") or state.get("turn") is None:
        return None
    return _("➡️ {name}, your turn.").format(name=mention_html(game.at_seat(state["turn"])))


EFFECTS = {
    "draws": lambda: _("turns up the top card"),
    "draws_nothing": lambda: _("finds no card to turn up (counts 0)"),
    "replaced": lambda: _("is replaced by an undealt card"),
    "zeroed": lambda: _("MAX→0"),
    "negated": lambda: _("MAX→−"),
    "removed": lambda: _("is removed by K"),
    "doubled": lambda: _("doubled"),
    "doubles": lambda: _("doubles the total"),
    "counts_zero": lambda: _("counts 0"),
    "reshuffles": lambda: _("counts 0; all cards are reshuffled after this round"),
}


SOURCES = {
    "draw1": lambda: _("Draw 1"),
    "face_up": lambda: _("face up"),
}


FEATHER_EFFECTS = {
    "doubles": lambda: _("doubles the green feathers still positive"),  # x2 on green only
    "draws": lambda: _("turns up the top feather"),
    "draws_nothing": lambda: _("finds no feather to turn up (counts 0)"),
    "reshuffles": lambda: _("counts 0; all feathers are reshuffled after this round"),
}


def _effect(edition: str, effect: str) -> str | None:
    if edition == "feathers" and effect in FEATHER_EFFECTS:
        return FEATHER_EFFECTS[effect]()
    label = EFFECTS.get(effect)
    return label() if label else None


def number(n: int) -> str:
    """A signed number with a true minus sign, as on the cards (``-4`` → ``−4``)."""
    return str(n).replace("-", "−")


def showdown_text(game: GameSnapshot, showdown: dict[str, Any]) -> str:
    """The revealed table: every card with what it did, the total, the bid and the loser.
    ``game`` is the game right after the showdown (for the lives left)."""
    caller = game.at_seat(showdown["caller"])
    bidder = game.at_seat(showdown["bidder"])
    lines = [_("🐺 {caller} calls <b>Coyote!</b> on {bidder}'s bid of {bid}.").format(
        caller=name_html(caller), bidder=name_html(bidder), bid=showdown["bid"]), ""]
    owners = list(showdown["owners"])
    sources = list(showdown.get("sources") or [])
    edition = game.options.get("edition", "classic")
    for i, card in enumerate(showdown["cards"]):
        who = name_html(game.at_seat(owners[i])) if i < len(owners) else _("turned up")
        source = SOURCES.get(sources[i] if i < len(sources) else "own")
        notes = ([source()] if source else []) + list(
            filter(None, (_effect(edition, e) for e in card["effects"])))
        changed = card["face"] is not None and card["value"] != card["face"]
        value = f" → {number(card['value'])}" if changed else ""
        note = f" ({', '.join(notes)})" if notes else ""
        lines.append(f"{who}: <b>{card_label(card['card'])}</b>{value}{note}")
    reshuffling = get_edition(edition).full_reshuffle_cards
    for seat, cards in enumerate(showdown.get("void") or []):
        for card in cards:
            text = (_("{name}: {card} (swapped away, does not count; all feathers are reshuffled "
                      "after this round)") if card in reshuffling
                    else _("{name}: {card} (swapped away, does not count)"))
            lines.append(text.format(name=name_html(game.at_seat(seat)), card=card_label(card)))
    lines += ["", _("Total: <b>{total}</b> · bid: {bid}").format(
        total=number(showdown["total"]), bid=showdown["bid"])]
    if showdown.get("removed_loser") is not None:
        lines.append(_("The bid was too high, but {name} has left the game: nobody loses a "
                       "life.").format(name=name_html(game.at_seat(showdown["removed_loser"]))))
        return "\n".join(lines)
    if showdown["loser"] is None:
        lines.append(_("The total equals the bid: nobody is penalised."))
        return "\n".join(lines)
    loser = game.at_seat(showdown["loser"])
    lives = (game.state or {})["lives"][loser.seat]
    good = showdown["loser"] == showdown["caller"]
    if game.options.get("edition") == "poker-deck":  # its rules speak of penalty cards
        template = (_("The total is above the bid: {name} takes a penalty card ({hearts}).")
                    if good else _("The bid was too high: {name} takes a penalty card "
                                   "({hearts})."))
    else:
        template = (_("The bid was good: {name} loses {n} ({hearts}).") if good
                    else _("The bid was too high: {name} loses {n} ({hearts})."))
    lost = _("two lives (🎭 Double)") if showdown["lives_lost"] == 2 else _("a life")
    lines.append(template.format(name=name_html(loser), n=lost, hearts=hearts(lives)))
    if lives == 0:
        lines.append(_("💀 {name} is out of the game.").format(name=name_html(loser)))
    return "\n".join(lines)


def showdown_summary(game: GameSnapshot, showdown: dict[str, Any]) -> str:
    """One line for a showdown among computer players shown in a batch (``game``: as it was
    right after that showdown): who lost one or two lives, and whether they are out."""
    loser = showdown["loser"]
    if loser is None:
        result = _("nobody is penalised")
    else:
        name = name_html(game.at_seat(loser))
        if game.options.get("edition") == "poker-deck":
            result = _("{name} takes a penalty card").format(name=name)
        else:
            result = (_("{name} loses two lives") if showdown["lives_lost"] == 2
                      else _("{name} loses a life")).format(name=name)
        if (game.state or {}).get("lives", [1] * (loser + 1))[loser] == 0:
            result += " " + _("and is out of the game")
    return _("🃏 {caller} called Coyote on {bidder}'s {bid}: total {total}, {result}.").format(
        caller=name_html(game.at_seat(showdown["caller"])),
        bidder=name_html(game.at_seat(showdown["bidder"])), bid=showdown["bid"],
        total=number(showdown["total"]), result=result)


def eliminated_text(game: GameSnapshot, events: list[dict[str, Any]]) -> str | None:
    """``💀 name is out`` for eliminations that happened outside a showdown (a wrong Guess)."""
    out = [e["seat"] for e in events if e["type"] == "player_eliminated"]
    if not out or any(e["type"] == "showdown" for e in events):
        return None
    return "\n".join(_("💀 {name} is out of the game.").format(
        name=name_html(game.at_seat(seat))) for seat in out)


def game_over_text(game: GameSnapshot) -> str:
    """The final places (the league's: ties share a place and its medal), the winner(s), and
    what play decided of the rating."""
    ranked = results.ranked(game)
    lines = [_("🏁 Game #{id} is over!").format(id=game.id), "", *results.final_lines(game)]
    winners = [mention_html(p) for place, p in ranked if place == 1]
    lines += ["", n_("🏆 Winner: {names}", "🏆 Winners: {names}", len(winners)).format(
        names=", ".join(winners))]
    rating = results.rating_lines(game)
    return "\n".join(lines + ["", *rating] if rating else lines)
