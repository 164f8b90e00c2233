"""Coyote's :class:`~telegram_app.games.base.GameUI`: the bot's view of the game, put
together from this package's screens, keyboards, verbs, reports and texts."""

from __future__ import annotations

import unicodedata
from pathlib import Path
from typing import Any

from engine import GAMES, Action
from engine.core import OptionSpec
from engine.coyote import EDITIONS, CoyoteGame
from engine.coyote.editions import BID_SPECIALS, MAX_BID
from league.store.errors import ServiceError
from league.store.snapshots import GameSnapshot, PlayerInfo
from telegram_app.games.base import Events, PageTable, Report, Rows
from telegram_app.games.coyote import notes, screens
from telegram_app.games.coyote import options as option_texts
from telegram_app.games.coyote import table as page_table
from telegram_app.games.coyote.errors import error_text
from telegram_app.games.coyote.keyboards import (
    SPECIAL_NAMES,
    VERBS,
    confirm_rows,
    guess_cards,
    guess_rows,
    move_rows,
    target_rows,
    unmod,
)
from telegram_app.games.coyote.replay import replay_lines
from telegram_app.games.coyote.rules import rules_text
from telegram_app.games.registry import Press
from telegram_app.i18n import _, join_list
from telegram_app.render.common import plain_name
from telegram_app.render.texts import escape

_RULES = CoyoteGame()


class CoyoteUI:
    """Coyote in Telegram (see :class:`telegram_app.games.base.GameUI` for each method)."""

    kind = "coyote"
    verbs = VERBS
    peek = True
    page = PageTable(page_table.table, page_table.controls, page_table.recent,
                     page_table.replay_marks, page_table.replay_cards)
    page_scripts: Path | None = None  # the generic table

    # --- names and settings ----------------------------------------------------------------
    def game_name(self) -> str:
        return option_texts.game_name()

    def help_lines(self) -> tuple[str | None, str | None]:
        # (/start's answer is written around the first game; /help names its editions)
        return None, _("🐺 <b>Coyote</b>: /newgame classic, feathers or poker-deck chooses "
                       "its edition; /rules with an edition explains it.")

    def title(self, options: dict[str, Any]) -> str:
        return option_texts.title(options)

    def setting_label(self, spec: OptionSpec, value: Any, options: dict[str, Any]) -> str:
        return option_texts.setting_label(spec, value, options)

    # --- lobby ---------------------------------------------------------------------------
    def lobby_text(self, game: GameSnapshot, reachable: set[int]) -> str:
        return screens.lobby_text(game, reachable)

    def option_label(self, game: GameSnapshot, spec: OptionSpec, value: Any) -> str:
        if spec.name == "lives":
            return _("❤️ Lives: {n}").format(n=value)
        if spec.name == "specials":
            if _RULES.specials_kind(game.options) == "coins":
                return _("🪙 Coins: on") if value else _("🪙 Coins: off")
            return _("🎭 Masks: on") if value else _("🎭 Masks: off")
        if spec.name == "after_elimination":
            return _("🔁 After a knock-out: the winner starts") if value == "winner" else \
                _("🔁 After a knock-out: the next player starts")
        return f"{spec.name}: {value}"

    def lobby_closed_text(self, game: GameSnapshot, *, reader: PlayerInfo | None = None) -> str:
        return screens.lobby_closed_text(game, reader=reader)

    def lobby_expired_text(self, game: GameSnapshot) -> str:
        return screens.lobby_expired_text(game)

    def new_game_options(self, args: list[str]) -> dict[str, Any] | str:
        if not args:  # (the chat's /settings choose the edition, else the game's default)
            return {}
        edition = edition_word(args[0])
        if edition not in EDITIONS:
            return _("Unknown edition “{edition}”. Choose one of: {list}.").format(
                edition=escape(edition[:32]), list=join_list(EDITIONS))
        if len(args) > 1:  # (no word is dropped unsaid: the lobby's buttons set the rest)
            return _("I do not know “{word}” after the edition: the lobby's buttons set the "
                     "lives and the special actions.").format(
                word=escape(plain_name(args[1], 24)))
        return {"edition": edition}

    # --- the group's table ---------------------------------------------------------------
    def table_text(self, game: GameSnapshot, *, mention: bool = False,
                   moves: list[Events] | None = None) -> str:
        if moves is None:
            return screens.table_text(game, mention=mention)
        return screens.table_text(game, mention=mention, moves=notes.round_lines(game, moves),
                                  opening=notes.round_opening(game, moves))

    def closed_table_text(self, game: GameSnapshot, moves: list[Events],
                          unseen: int | None) -> str:
        return notes.closed_table_text(game, moves, unseen)

    def peek_alert(self, game: GameSnapshot, seat: int) -> str | None:
        return screens.peek_alert(game, seat)

    def table_rows(self, game: GameSnapshot) -> Rows:
        return []

    # --- a player's private message ------------------------------------------------------
    def out_text(self, game: GameSnapshot, seat: int) -> str | None:
        return None  # (knocked out or left: out of this game, as the common answer says)

    def in_hand(self, game: GameSnapshot, seat: int) -> bool:
        if not game.state:
            return False
        return bool(GAMES[game.kind].view(game.state, None)["in_play"][seat])

    def private_text(self, game: GameSnapshot, seat: int, *, in_group: bool = False) -> str:
        return screens.private_text(game, seat, in_group=in_group)

    def private_rows(self, game: GameSnapshot, seat: int) -> Rows:
        state = game.state or {}
        if state.get("turn") != seat or state.get("over"):
            return []  # (a bid keyboard only on one's turn: others' moves need no redraw)
        return move_rows(game)

    def private_closed_text(self, game: GameSnapshot, hand: int, *,
                            reader: PlayerInfo | None = None) -> str:
        return screens.private_closed_text(game, hand, reader=reader)

    def private_cancelled_text(self, game: GameSnapshot, *, reader: PlayerInfo | None) -> str:
        return screens.private_cancelled_text(game, reader=reader)

    def redraw_seats(self, game: GameSnapshot, events: Events) -> set[int] | None:
        # A card on the table changed (Draw 1's extra card, a Swap's new feather, an Extra
        # feather face up, a right Guess's card face up): everyone else sees it, so every
        # view that shows the cards is redrawn; else only the seat a special was aimed at
        if any(e["type"] == "card_drawn" or (e["type"] == "special_used" and e.get(
                "special") in ("swap", "extra", "guess")) for e in events):
            return None
        return {e["target"] for e in events
                if isinstance(e.get("target"), int) and not isinstance(e.get("target"), bool)}

    # --- reports ---------------------------------------------------------------------------
    def report(self, game: GameSnapshot, steps: list[Any], held: list[str] | None = None, *,
               mention: bool = True) -> Report:
        return notes.report(game, steps, held, mention=mention)

    def untold_lines(self, game: GameSnapshot, logged: list[Events]) -> list[str]:
        return notes.untold_lines(game, logged)

    def keeps_turn(self, game: GameSnapshot, steps: list[Any]) -> bool:
        return notes.keeps_turn(game, steps)

    def still_acting(self, game: GameSnapshot, logged: list[Events]) -> bool:
        return notes.still_acting(game, logged)

    def opens_table(self, events: Events) -> bool:
        return any(e["type"] == "round_dealt" for e in events)

    def deals_hand(self, events: Events) -> bool:
        return self.opens_table(events)

    def turn_line(self, game: GameSnapshot) -> str | None:
        return notes.turn_line(game)

    def game_over_text(self, game: GameSnapshot) -> str:
        return notes.game_over_text(game)

    def replay_lines(self, game: GameSnapshot, logged: list[Events]) -> list[str]:
        return replay_lines(game, logged)

    # --- input -----------------------------------------------------------------------------
    def direct_action(self, press: Press) -> Action | None:
        if press.verb not in ("b", "c", "x"):
            return None  # (a Guess needs the game's cards; the rest draw keyboards)
        try:
            return _action(press, None)
        except ServiceError:
            return None

    def press(self, game: GameSnapshot, press: Press, seat: int | None, in_group: bool
              ) -> Action | Rows:
        if press.verb in ("m", "k", "g", "cc"):
            # Another keyboard: only the player to act may, while their buttons are current.
            if game.status != "running":
                raise ServiceError("not_running")
            if game.version != press.version:
                raise ServiceError("stale")
            if seat is None:
                raise ServiceError("not_a_player")
            if (game.state or {}).get("turn") != seat:
                raise ServiceError("not_your_turn")
            if press.verb == "cc" and not game.at_seat(seat).confirms_ending:
                return Action("call")  # (turned off since this button was drawn)
            return _more_rows(press, game)
        if seat is None:  # before reading the button's move
            raise ServiceError("not_a_player")
        return _action(press, game)

    def typed(self, game: GameSnapshot, seat: int, text: str) -> Action | str:
        text = text.strip()
        if not text.isascii() or not text.isdigit() or not 0 < len(text) <= 12 or \
                int(text) > MAX_BID:
            return _("To bid, type a whole number from 1 to {max} (or use the buttons).").format(
                max=MAX_BID)
        return Action("bid", int(text))

    def typed_choose_text(self, games: list[GameSnapshot]) -> str:
        return _("It is your turn in games {ids}: to bid, reply to that game's message with "
                 "the number (or use its buttons).").format(
                     ids=join_list(f"#{g.id}" for g in games))

    def rules_text(self, args: list[str], options: dict[str, Any] | None = None) -> str:
        edition = edition_word((args or [""])[0])
        if edition in EDITIONS:
            return rules_text(edition, None)
        return rules_text((options or {}).get("edition", "classic"), options)

    def error_text(self, code: str, detail: dict[str, Any]) -> str | None:
        return error_text(code, detail)

    def confirm_text(self, on: bool | None) -> str | None:
        return confirm_text(on)



def edition_word(word: str) -> str:
    """An edition's name as typed: lower case, and read as ASCII when a Japanese keyboard in
    full-width mode typed it (``ｐｏｋｅｒ－ｄｅｃｋ`` → ``poker-deck``)."""
    return unicodedata.normalize("NFKC", word).lower()


def confirm_text(on: bool | None) -> str:
    """``/confirm``'s answer (``handlers/preferences.py``): whether the player's 🐺 Coyote!
    asks them to confirm it (``on``), and how to change that; sent in a group (``None``):
    where to send it."""
    if on is None:
        return _("Send /confirm on or /confirm off to me in a private chat: whether 🐺 "
                 "Coyote! asks you first.")
    if on:
        return _("🐺 Coyote! asks you to confirm before it ends the round. Send /confirm off "
                 "to call at once.")
    return _("🐺 Coyote! calls at once, without asking. Send /confirm on to be asked first.")


def _action(press: Press, game: GameSnapshot | None) -> Action:
    """The engine action a move button stands for (``game`` is needed for a Guess only);
    raises ``bad_button``."""
    try:
        if press.verb == "c":
            return Action("call")
        if press.verb == "b":
            special, target = unmod(press.args[2] if len(press.args) > 2 else None)
            if press.args[1] > MAX_BID:
                raise ServiceError("bid_too_high", max=MAX_BID)
            return Action("bid", press.args[1], special=special, target=target)
        if press.verb == "x":
            return Action("special", special=SPECIAL_NAMES[press.args[1]])
        if press.verb == "q" and game is not None:
            return Action("special", special="guess", guess=guess_cards(game)[press.args[1]])
    except (KeyError, IndexError):
        pass
    raise ServiceError("bad_button")


def _more_rows(press: Press, game: GameSnapshot) -> Rows:
    """The rows of the keyboard a ``m``/``k``/``g``/``cc`` press asks for; raises
    ``KeyError``."""
    if press.verb == "m":
        mod = press.args[2] if len(press.args) > 2 else None
        if unmod(mod)[0] not in (None, *BID_SPECIALS):
            raise KeyError(mod)
        return move_rows(game, press.args[1], mod)
    if press.verb == "k":
        special = SPECIAL_NAMES[press.args[1]]
        if special not in BID_SPECIALS:
            raise KeyError(special)
        return target_rows(game, special)
    if press.verb == "cc":
        state = game.state or {}
        if not any(a.kind == "call" for a in GAMES[game.kind].legal_actions(state,
                                                                             state["turn"])):
            raise KeyError("call")
        return confirm_rows(game)
    if "guess" not in (game.state or {}).get("coins", []):
        raise KeyError("guess")
    return guess_rows(game)


UI = CoyoteUI()
