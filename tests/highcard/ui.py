"""High card's :class:`telegram_app.games.base.GameUI` (a toy used only by the tests): the
table and each player's private message for a round, their cards as buttons
(``hc:<game>:<version>:<rank>``), one line per card played, one per round won."""

from __future__ import annotations

from typing import Any

from telegram import InlineKeyboardButton

from engine import Action
from engine.core import PLAYER_REMOVED, ROUND_OVER, OptionSpec
from league.store.errors import ServiceError
from league.store.snapshots import GameSnapshot, PlayerInfo
from telegram_app.games.base import Events, Report, Rows
from telegram_app.games.registry import Press
from telegram_app.render.common import mention_html, name_html
from tests.highcard.game import DEALT, PLAYED


def _name(game: GameSnapshot, seat: int) -> str:
    return name_html(game.at_seat(seat))


class HighCardUI:
    kind = "highcard"
    verbs = {"hc": (2,)}
    peek = False

    # --- names and settings ----------------------------------------------------------------
    def game_name(self) -> str:
        return "High card"

    def help_lines(self) -> tuple[str | None, str | None]:
        return None, None

    def confirm_text(self, on: bool | None) -> str | None:
        return None

    def title(self, options: dict[str, Any]) -> str:
        return "High card"

    def setting_label(self, spec: OptionSpec, value: Any, options: dict[str, Any]) -> str:
        return f"{spec.name}: {value}"

    # --- lobby ---------------------------------------------------------------------------
    def lobby_text(self, game: GameSnapshot, reachable: set[int]) -> str:
        names = "\n".join(f"{n}. {name_html(p)}" for n, p in enumerate(game.players, 1))
        return f"🃏 <b>High card</b> — new game #{game.id}\n\n{names}"

    def option_label(self, game: GameSnapshot, spec: OptionSpec, value: Any) -> str:
        return f"{spec.name}: {value}"

    def lobby_closed_text(self, game: GameSnapshot, *, reader: PlayerInfo | None = None) -> str:
        return f"🃏 High card #{game.id}: {game.status}."

    def lobby_expired_text(self, game: GameSnapshot) -> str:
        return f"🃏 High card #{game.id} expired."

    def new_game_options(self, args: list[str]) -> dict[str, Any] | str:
        return {} if not args else "High card has no options."

    # --- table ---------------------------------------------------------------------------
    def _scores(self, game: GameSnapshot) -> list[str]:
        state = game.state or {}
        return [f"{name_html(p)}: {state['scores'][p.seat or 0]} point(s)"
                + (f" · played {state['played'][p.seat or 0]}"
                   if state["played"][p.seat or 0] is not None else "")
                for p in game.seated]

    def table_text(self, game: GameSnapshot, *, mention: bool = False,
                   moves: list[Events] | None = None) -> str:
        state = game.state or {}
        lines = [f"🃏 High card #{game.id} · round {state['round']}", *self._scores(game)]
        if mention and state["turn"] is not None:
            lines.append(f"{mention_html(game.at_seat(state['turn']))} leads the round.")
        return "\n".join(lines)

    def closed_table_text(self, game: GameSnapshot, moves: list[Events],
                          unseen: int | None) -> str:
        state = game.state or {}  # (the round on screen: the one before, unless the last)
        shown = state["round"] - (0 if state["over"] else 1)
        return f"🃏 High card #{game.id} · round {shown} is over."

    def out_text(self, game: GameSnapshot, seat: int) -> str | None:
        return None

    def peek_alert(self, game: GameSnapshot, seat: int) -> str | None:
        return None

    def table_rows(self, game: GameSnapshot) -> Rows:
        return []

    # --- private -------------------------------------------------------------------------
    def in_hand(self, game: GameSnapshot, seat: int) -> bool:
        return bool(game.state) and not (game.state or {})["removed"][seat]

    def private_text(self, game: GameSnapshot, seat: int, *, in_group: bool = False) -> str:
        state = game.state or {}
        hand = " ".join(str(r) for r in state["hands"][seat]) or "–"
        turn = "Your turn: play a card." if state["turn"] == seat else "Wait for your turn."
        return "\n".join([f"🃏 High card #{game.id} · round {state['round']}",
                          *self._scores(game), f"Your hand: {hand}", turn])

    def private_rows(self, game: GameSnapshot, seat: int) -> Rows:
        state = game.state or {}
        if state["turn"] != seat or state["over"]:
            return []
        return [[InlineKeyboardButton(f"🂠 {rank}", callback_data=Press(
            "hc", game.id, (game.version, rank)).encode()) for rank in state["hands"][seat]]]

    def private_closed_text(self, game: GameSnapshot, hand: int, *,
                            reader: PlayerInfo | None = None) -> str:
        return f"🃏 High card #{game.id} · round {hand} is over."

    def private_cancelled_text(self, game: GameSnapshot, *, reader: PlayerInfo | None) -> str:
        return f"🃏 High card #{game.id} was cancelled."

    def redraw_seats(self, game: GameSnapshot, events: Events) -> set[int] | None:
        return set()

    # --- reports ---------------------------------------------------------------------------
    def _lines(self, game: GameSnapshot, events: Events) -> list[str]:
        lines = []
        for e in events:
            if e["type"] == "turn_timed_out":
                lines.append(f"⏰ {_name(game, e['seat'])} ran out of time: the computer "
                             "plays for them.")
            elif e["type"] == PLAYED:
                lines.append(f"{_name(game, e['seat'])} plays {e['card']}.")
            elif e["type"] == ROUND_OVER and e["winner"] is not None:
                lines.append(f"🏅 {_name(game, e['winner'])} wins round {e['round']} with "
                             f"{e['card']}.")
            elif e["type"] == ROUND_OVER:
                lines.append(f"Round {e['round']}: a tie at {e['card']}, nobody scores.")
            elif e["type"] == PLAYER_REMOVED:
                lines.append(f"🚪 {_name(game, e['seat'])} leaves the game.")
        return lines

    def report(self, game: GameSnapshot, steps: list[Any], held: list[str] | None = None, *,
               mention: bool = True) -> Report:
        lines, closed, new_table = list(held or []), None, False
        for step in steps:
            lines += self._lines(game, step.events)
            for e in step.events:
                if e["type"] == ROUND_OVER and closed is None:
                    closed = e["round"]
                if e["type"] == DEALT:
                    new_table = True
        over = bool((game.state or {}).get("over"))
        if over:
            lines += ["", self.game_over_text(game)]
        elif mention and not new_table and (turn := self.turn_line(game)):
            lines.append(turn)
        return Report(lines, closed, new_table and not over)

    def untold_lines(self, game: GameSnapshot, logged: list[Events]) -> list[str]:
        return [line for events in logged for line in self._lines(game, events)]

    def keeps_turn(self, game: GameSnapshot, steps: list[Any]) -> bool:
        return False

    def still_acting(self, game: GameSnapshot, logged: list[Events]) -> bool:
        return False

    def opens_table(self, events: Events) -> bool:
        return any(e["type"] == DEALT for e in events)

    def deals_hand(self, events: Events) -> bool:
        return self.opens_table(events)

    def turn_line(self, game: GameSnapshot) -> str | None:
        state = game.state or {}
        if state.get("over") or state.get("turn") is None:
            return None
        return f"➡️ {mention_html(game.at_seat(state['turn']))}, your turn."

    def game_over_text(self, game: GameSnapshot) -> str:
        state = game.state or {}
        return f"🏁 High card #{game.id} is over! 🏆 {_name(game, state['winner'])} wins."

    def replay_lines(self, game: GameSnapshot, logged: list[Events]) -> list[str]:
        return self.untold_lines(game, logged)

    # --- input -----------------------------------------------------------------------------
    def direct_action(self, press: Press) -> Action | None:
        return Action("play", cards=(str(press.args[1]),))

    def press(self, game: GameSnapshot, press: Press, seat: int | None, in_group: bool
              ) -> Action | Rows:
        if seat is None:
            raise ServiceError("not_a_player")
        return Action("play", cards=(str(press.args[1]),))

    def typed(self, game: GameSnapshot, seat: int, text: str) -> Action | str:
        text = text.strip()
        return Action("play", cards=(text,)) if text.isdigit() else "Type a card's rank."

    def typed_choose_text(self, games: list[GameSnapshot]) -> str:
        return "Reply to the game's message with the rank."

    def rules_text(self, args: list[str], options: dict[str, Any] | None = None) -> str:
        return "<b>High card</b>: play one card a round; the highest wins a point; 3 wins."

    def error_text(self, code: str, detail: dict[str, Any]) -> str | None:
        return None


UI = HighCardUI()
