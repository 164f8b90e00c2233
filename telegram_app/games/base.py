"""The bot's side of a game: the :class:`GameUI` protocol.

``engine.GAMES`` maps a game's kind to its rules (:class:`engine.core.Game`);
``telegram_app.games.registry.UIS`` maps the same kind to its Telegram face, a
:class:`GameUI`: its texts, keyboards, callback verbs, typed input and group reports. The
handlers, the presenter and the scheduler hold no game's words: they ask the game's UI
(``ui_for(game)``) what to draw and, after a move, what the group is told, whether a new
table message is posted, and whose private messages are drawn again.

Terms used below:

- ``game`` is a :class:`league.store.snapshots.GameSnapshot` (state, options, seats, message ids).
- A **hand** is one deal of private information: every player's private message belongs to
  a hand (``Game.hand_number(state)``: Coyote's round, Koira's phase). A new
  hand number means every player still in gets a new private message and the old one is
  closed with :meth:`GameUI.private_closed_text`.
- The **table** is the game's one live message in the group. :meth:`GameUI.report` says
  after each move what the group is told and whether a new table is posted
  (``Report.new_table``: Coyote's new round, Koira's new trick); a quiet group edits its
  table in place between hands (:class:`Report`).
- **Rows** are inline keyboard rows (``list[list[InlineKeyboardButton]]``).

Texts are Telegram HTML; every name goes through ``telegram_app.render.common.name_html``.
A UI method that draws a text for the group is called in the group's language, one for a
player's private chat in that player's (the implementation decorates it with
``telegram_app.render.language.in_chat_language`` / ``in_seat_language`` /
``in_reader_language`` as the Coyote package shows).

Callback verbs and the registry by kind (``register``, ``ui_for``) are in
:mod:`telegram_app.games.registry`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol, runtime_checkable

from telegram import InlineKeyboardButton

from engine import Action

if TYPE_CHECKING:
    from engine.core import OptionSpec
    from league.store.snapshots import GameSnapshot, PlayerInfo
    from telegram_app.games.registry import Press

Rows = list[list[InlineKeyboardButton]]
"""Inline keyboard rows."""
Events = list[dict[str, Any]]
"""One move's events as the league logs them (``Event.to_json()``: ``{"type", ...}``)."""

@dataclass(frozen=True)
class Report:
    """What the group is told about one committed change (or a run of them).

    ``lines``: one group message (may be empty: nothing to tell). ``closed``: the hand number
    whose private messages end with this change (``None``: the hand goes on).
    ``new_table``: the game goes on under a new table message, which ``lines`` head (Coyote:
    a round was dealt; Koira: a trick began) — the presenter posts it and the players' new
    private messages if the hand changed too. In a quiet group (the default) the presenter
    posts a new table only when a hand is dealt and edits the table in place after the other
    moves, sending ``lines`` as a note only for what the whole group should notice
    (``telegram_app.presenter.reports``); with "a note per move" every report is a note."""

    lines: list[str]
    closed: int | None
    new_table: bool


class PageTable(NamedTuple):
    """One game's drawing for the Mini App (``telegram_app.miniapp.table``): ``table(game, seat or
    None)`` (the page's generic shape plus the game's own keys), ``controls(game, seat)`` (the
    seat's legal moves as controls), ``recent(game, [events of a logged step, …])`` (plain
    lines), and for the replay ``replay_marks([events of a logged step, …])`` (``(logged step,
    label)`` of each place to jump to) and ``replay_cards(game, events)`` (the cards those
    events showed, each with its owner: ``{"cards": [{"name", "card", "value"}], "legend"}`` or
    ``None``)."""

    table: Callable[[GameSnapshot, int | None], dict[str, Any]]
    controls: Callable[[GameSnapshot, int], list[dict[str, Any]]]
    recent: Callable[[GameSnapshot, list[list[dict[str, Any]]]], list[str]]
    replay_marks: Callable[[list[list[dict[str, Any]]]], list[tuple[int, str]]]
    replay_cards: Callable[[GameSnapshot, list[dict[str, Any]]], dict[str, Any] | None]


@runtime_checkable
class GameUI(Protocol):
    """Everything the bot shows of one game kind, and how it reads that game's input.

    Implementations are stateless objects (one per kind, in :data:`UIS`). ``game`` arguments
    are snapshots as committed; ``seat`` a seat number of that game. No method sends
    anything: the presenter and the handlers send what these return.
    """

    kind: str
    """The key in ``engine.GAMES`` (and in :data:`UIS`)."""

    verbs: dict[str, tuple[int, ...]]
    """This game's callback verbs, each with the allowed counts of numbers after the game id
    (the version included). Unique across games and :data:`LEAGUE_VERBS`; each button the
    game draws carries the game's version first."""

    peek: bool
    """Whether the table carries the 🎴 My cards button (``p``): a player's cards and moves
    (:meth:`private_text` and the private keyboard) shown to them alone in the group, as an
    ephemeral message (``telegram_app/presenter/ephemeral.py``), the same as in their private
    chat; :meth:`peek_alert` as an alert where Telegram refuses one."""

    page: PageTable
    """How the Mini App draws this game (the package's ``table.py``)."""

    page_scripts: Path | None
    """The folder of the game's own page scripts, served at ``static/games/<kind>/``, or
    ``None``: its ``table.js`` exports ``draw(page, t, send)``, used when the game's page
    names ``"layout": <kind>``; without it the page draws the generic table."""

    # --- names and settings ----------------------------------------------------------------
    def game_name(self) -> str:
        """The game's name as players read it (reader's language): ``/settings``, a rating
        card's other games, the league's tables."""
        ...

    def help_lines(self) -> tuple[str | None, str | None]:
        """This game's line in the private /start answer and in /help (reader's language),
        each ``None`` for none: the first game's commands are the help's own text."""
        ...

    def confirm_text(self, on: bool | None) -> str | None:
        """``/confirm``'s answer for this game's move that ends the round, which asks the
        player to confirm it unless they turned that off (``PlayerInfo.confirms_ending``):
        how it is set (``on``), or where to send /confirm (``None``: it was sent in a
        group). ``None`` if the game has no such move (reader's language)."""
        ...

    def title(self, options: dict[str, Any]) -> str:
        """A finished game as ``/history`` names it, from the options it was opened with
        (Coyote: its edition), else :meth:`game_name` (reader's language)."""
        ...

    def setting_label(self, spec: OptionSpec, value: Any, options: dict[str, Any]) -> str:
        """A ``/settings`` button's label for a chat's default of ``spec`` at ``value``
        (``options``: the chat's current defaults of this game), the chat's language; the
        keyboard puts :meth:`game_name` before it."""
        ...

    # --- lobby ---------------------------------------------------------------------------
    def lobby_text(self, game: GameSnapshot, reachable: set[int]) -> str:
        """The lobby message (group language): title, options, the seated players
        (``reachable``: user ids the bot may message privately; others get a 🔕 and a hint:
        they play from the group with 🎴), how to start. Its keyboard is the bot's
        (``telegram_app.keyboards.lobby_keyboard``, drawn from ``Game.option_specs`` with
        :meth:`option_label`)."""
        ...

    def option_label(self, game: GameSnapshot, spec: OptionSpec, value: Any) -> str:
        """A lobby button's label for option ``spec`` showing its current ``value`` (group
        language; at most the width tests/bot/test_button_widths.py allows)."""
        ...

    def lobby_closed_text(self, game: GameSnapshot, *, reader: PlayerInfo | None = None) -> str:
        """The lobby once started or cancelled (no buttons), in ``reader``'s language
        (``None``: the group's)."""
        ...

    def lobby_expired_text(self, game: GameSnapshot) -> str:
        """A lobby nobody started in time (group language)."""
        ...

    def new_game_options(self, args: list[str]) -> dict[str, Any] | str:
        """``/newgame <args>`` for this kind: the lobby's options, or a polite refusal
        (group language, HTML-escaped) for arguments it does not know."""
        ...

    # --- the group's table ---------------------------------------------------------------
    def table_text(self, game: GameSnapshot, *, mention: bool = False,
                   moves: list[Events] | None = None) -> str:
        """The table message as the game is now (group language); ``mention``: it is a new
        message and mentions (notifies) the player who opens it; ``moves``: the events of
        the game's latest logged moves, in order (the table is edited as a hand's moves
        happen, and may tell them). Never a hidden card."""
        ...

    def closed_table_text(self, game: GameSnapshot, moves: list[Events],
                          unseen: int | None) -> str:
        """The table message on screen, closed once the next table, the game's end or its
        cancellation is posted below it (group language; ``game``: as it is now; ``moves``:
        as for :meth:`table_text`, of which the last ``unseen`` came after the table was last
        drawn; ``None``: not known): the hand it showed, with how that hand ended, without a
        turn, a clock or 🎴, so an old table never looks live."""
        ...

    def peek_alert(self, game: GameSnapshot, seat: int) -> str | None:
        """The 👀 alert for ``seat``, 🎴's fallback where Telegram refuses an ephemeral
        message (what they may see, plain text, ≤ 200 characters, their language); ``None``:
        nothing to show (only asked when :attr:`peek` is set)."""
        ...

    def table_rows(self, game: GameSnapshot) -> Rows:
        """Rows the table carries under the bot's own (🎴 and the Mini App link); usually
        none: moves are made in the private chats or through 🎴."""
        ...

    # --- a player's private message ------------------------------------------------------
    def in_hand(self, game: GameSnapshot, seat: int) -> bool:
        """Whether ``seat`` takes part in the current hand (gets and keeps a private message
        of it): false once eliminated, out or removed."""
        ...

    def out_text(self, game: GameSnapshot, seat: int) -> str | None:
        """The answer to 🎴 from ``seat``, no longer :meth:`in_hand`, where the game says
        more than "you are out of this game" (Koira: out of cards, safe, and the place);
        ``None``: that (reader's language)."""
        ...

    def private_text(self, game: GameSnapshot, seat: int, *, in_group: bool = False) -> str:
        """``seat``'s private message (their language, headed by the group's name via
        ``telegram_app.render.place.with_place``): what they may see and what they may do.
        ``in_group``: the same view shown in the group by 🎴 (an ephemeral message): no
        group heading, and nothing that works only in the private chat (typed moves)."""
        ...

    def private_rows(self, game: GameSnapshot, seat: int) -> Rows:
        """``seat``'s buttons under :meth:`private_text` (their language): their moves on
        their turn (Coyote), or their hand for the whole hand (Koira). May be empty."""
        ...

    def private_closed_text(self, game: GameSnapshot, hand: int, *,
                            reader: PlayerInfo | None = None) -> str:
        """A private message of hand ``hand`` once that hand is over (or the game is),
        without buttons, in ``reader``'s language."""
        ...

    def private_cancelled_text(self, game: GameSnapshot, *, reader: PlayerInfo | None) -> str:
        """A private message of a game that was cancelled, in ``reader``'s language."""
        ...

    def redraw_seats(self, game: GameSnapshot, events: Events) -> set[int] | None:
        """After a move (``events``, in order; ``game`` as it is now): the seats whose private
        messages are edited, besides the player to act, who always is; ``None``: every seat.
        Coyote: every seat when a card on the table changed (the others see it), else only
        a seat a special was aimed at, so a bid costs one private edit."""
        ...

    # --- reports ---------------------------------------------------------------------------
    def report(self, game: GameSnapshot, steps: list[Any], held: list[str] | None = None, *,
               mention: bool = True) -> Report:
        """The report of ``steps`` (``league.match.outcome.Step`` list, ``game`` as committed right
        after them), group language: ``held`` lines of earlier moves not yet told come
        first; ``mention``: end with a mention of the player to act (false when the game has
        moved on since)."""
        ...

    def untold_lines(self, game: GameSnapshot, logged: list[Events]) -> list[str]:
        """Lines for logged moves the group was never told (``logged``: each move's events,
        in order; ``game``: as it is now), group language."""
        ...

    def keeps_turn(self, game: GameSnapshot, steps: list[Any]) -> bool:
        """Whether ``steps`` leave the same player to act within the same turn (Coyote's
        Reverse, Extra feather, Swap, Change): their report then waits for that player's
        next move and only private messages are drawn."""
        ...

    def still_acting(self, game: GameSnapshot, logged: list[Events]) -> bool:
        """:meth:`keeps_turn` for logged moves not told yet (``game``: as it is now)."""
        ...

    def opens_table(self, events: Events) -> bool:
        """Whether a move with these events begins a new table message in a group told a
        note per move (Coyote: a round was dealt; Koira: a trick began)."""
        ...

    def deals_hand(self, events: Events) -> bool:
        """Whether a move with these events deals a new hand (every player's cards replaced;
        Coyote: a round, Koira: the deal and phase 2), where a quiet group's next table
        begins."""
        ...

    def turn_line(self, game: GameSnapshot) -> str | None:
        """The line that mentions the player to act (group language), ``None`` if nobody
        is."""
        ...

    def game_over_text(self, game: GameSnapshot) -> str:
        """The end of the game: result and placements (group language)."""
        ...

    def replay_lines(self, game: GameSnapshot, logged: list[Events]) -> list[str]:
        """``/replay``: one line per logged event worth telling (reader's language)."""
        ...

    # --- input -----------------------------------------------------------------------------
    def direct_action(self, press: Press) -> Action | None:
        """The action a button stands for on its own, without reading the game (the fast
        path: one transaction a press), or ``None`` (then :meth:`press` decides)."""
        ...

    def press(self, game: GameSnapshot, press: Press, seat: int | None, in_group: bool
              ) -> Action | Rows:
        """A press of one of :attr:`verbs` on a message of ``game`` (as it is now) by the
        player at ``seat`` (``None``: the presser does not play; refuse with
        ``not_a_player`` where your checks' order wants it); ``in_group``: on the table, else
        in the private chat. Returns the action to apply (the service refuses it as
        ``stale`` if ``press.version`` is not the game's), or the rows of another keyboard
        for the pressed message (more bids, a target, a selection of cards with a tick on
        each chosen one — the selection lives in the callback data, e.g. a bitmask of hand
        indexes, with the version), drawn in the pressed message's language (the caller sets
        it). Raises ``league.store.errors.ServiceError`` (``bad_button``, ``stale``,
        ``not_your_turn``, …) to refuse; ``KeyError``/``IndexError`` count as
        ``bad_button``."""
        ...

    def typed(self, game: GameSnapshot, seat: int, text: str) -> Action | str:
        """A text typed in the private chat on ``seat``'s turn: the action it stands for, or
        the hint to answer (their language)."""
        ...

    def typed_choose_text(self, games: list[GameSnapshot]) -> str:
        """The answer to a text typed while it is the sender's turn in several ``games`` and
        the text replies to none of their messages."""
        ...

    def rules_text(self, args: list[str], options: dict[str, Any] | None = None) -> str:
        """``/rules <args>``: this game's rules (``options``: the open game's, so the text
        tells its numbers), short enough for one message."""
        ...

    def error_text(self, code: str, detail: dict[str, Any]) -> str | None:
        """The alert (≤ 200 characters) for one of this game's ``RuleError`` codes, or
        ``None`` for a code it does not own."""
        ...


# --- the engine's game-neutral queries, as the bot reads them ------------------------------


def _ask(game: GameSnapshot, name: str, default: Any) -> Any:
    from engine import GAMES  # (engine.GAMES is filled once every game is imported)

    state = game.state
    if not state:
        return default
    return getattr(GAMES[game.kind], name)(state)


def hand_number(game: GameSnapshot) -> int:
    """``Game.hand_number(state)``: the current hand (0 before the first deal, or with no
    state); its private messages belong to it."""
    return int(_ask(game, "hand_number", 0))


def current_seat(game: GameSnapshot) -> int | None:
    """``Game.current_seat(state)``: the seat to act (``None``: nobody, or no state)."""
    seat = _ask(game, "current_seat", None)
    return None if seat is None else int(seat)


def is_over(game: GameSnapshot) -> bool:
    """``Game.is_over(state)``: whether the game has ended (``False`` with no state)."""
    return bool(_ask(game, "is_over", False))


def turn_marker(game: GameSnapshot) -> tuple[Any, ...]:
    """Who is to act and how far the game is (``current_seat``, ``progress``): two equal
    markers mean the same turn is still on (a report may then mention the player to act)."""
    from engine import GAMES

    if not game.state:
        return (None, None)
    progress = _ask(game, "progress", None)
    return (GAMES[game.kind].current_seat(game.state), repr(progress))


def private_hand(player: PlayerInfo) -> int | None:
    """The hand number ``player``'s private message was sent for (``None``: none)."""
    return player.private_hand
