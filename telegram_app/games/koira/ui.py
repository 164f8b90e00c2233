"""Koira's :class:`telegram_app.games.base.GameUI`: the bot asks it what to draw and how to
read a press or a typed card. Register it with ``games.registry.register(KOIRA)``.

Registered by importing :mod:`telegram_app.games.koira` (its ``__init__``).

A hand (``Game.hand_number``) is a phase: phase 1's private messages close when phase 2
deals the won cards out (R9). The reports below are the notes of a group set to "a note per
move" (README, Playing, Message economy): a move inside a trick is one short note (what
happened, the trick so far, a mention of the player to act); a move that begins a trick posts
the new table instead, headed by that note. A quiet group (the default) edits its one table
a phase in place instead (``telegram_app.presenter.reports``). A move redraws the private
messages of the players whose hand it changed (the mover, the drawers) and of the player to
act; nobody else's.
"""

from __future__ import annotations

from dataclasses import replace
from html import escape
from pathlib import Path
from typing import TYPE_CHECKING, Any

from engine import GAMES
from engine.core import Action, RuleError
from engine.koira.cards import sort_key
from league.store.errors import ServiceError
from league.store.snapshots import GameSnapshot, PlayerInfo
from telegram_app.games.base import Events, PageTable, Report, Rows
from telegram_app.games.koira import errors, keyboards, notes, replay, rules, screens
from telegram_app.games.koira import options as option_texts
from telegram_app.games.koira import table as page_table
from telegram_app.games.koira.words import cards_label, hand_label, typed_card
from telegram_app.games.registry import Press
from telegram_app.i18n import _, join_list
from telegram_app.render.common import plain_name
from telegram_app.render.language import in_chat_language, in_reader_language, in_seat_language
from telegram_app.render.lobby import lobby_body

if TYPE_CHECKING:
    from engine.core import OptionSpec

ALERT_LIMIT = 200
NEW_GAME_WORDS = {"tie_split": ("tie_split", True), "trump_ends_trick": ("trump_ends_trick", True),
                  "pickup_single": ("pickup_single", True), "3": ("min_sequence", 3),
                  "2": ("min_sequence", 2)}
"""``/newgame koira <words>``: each word sets one option (``3``: sequences of 3 or more)."""
REDRAWN = ("card_played", "picked_up", "cards_drawn", "player_out", "trump_revealed")
"""Events whose ``seat`` had their hand changed: their private message is drawn again."""
SEPARATORS = str.maketrans(",・･", "   ")
"""Between typed cards, besides spaces: commas (the handler reads 「、」 as one) and the
Japanese list mark 「・」, which a Japanese keyboard types on its 「/」 key in kana mode."""


def _engine() -> Any:
    return GAMES["koira"]


@in_chat_language
def lobby_text(game: GameSnapshot, reachable: set[int]) -> str:
    """The lobby: the rule options, the players (🔕: not reachable privately), how to start."""
    lines = [_("🐕 <b>Koira</b> — new game #{id}").format(id=game.id),
             option_texts.options_line(game.options), ""]
    return "\n".join(lines + lobby_body(game, reachable))


@in_chat_language
def option_label(game: GameSnapshot, spec: OptionSpec, value: Any) -> str:
    """A lobby option's button label in the group's language."""
    return option_texts.option_label(spec.name, value)


@in_reader_language
def lobby_closed_text(game: GameSnapshot, reader: PlayerInfo | None = None) -> str:
    """The lobby once started or cancelled (``reader``: taken by the decorator, for whom it
    is drawn; ``None``: the group)."""
    if game.status == "cancelled":
        return _("🐕 Koira #{id} was cancelled.").format(id=game.id)
    names = join_list(screens.player_label(p) for p in game.players)
    return _("🐕 Koira #{id} started with {names}.").format(id=game.id, names=names) + \
        "\n" + option_texts.options_line(game.options)


@in_chat_language
def lobby_expired_text(game: GameSnapshot) -> str:
    """A lobby nobody started in time."""
    return _("🐕 Koira #{id} expired: nobody started it in time. Send /newgame koira to "
             "open a new one.").format(id=game.id)


@in_chat_language
def table_text(game: GameSnapshot, mention: bool = False,
               moves: list[Events] | None = None) -> str:
    """The trick's table; a new one (``mention``) mentions who leads. With ``moves`` (a quiet
    group's live table, edited as the moves happen), it opens with the move that ended the
    last trick (who won it with what; the move into phase 2), so no trick's end goes
    untold."""
    text = screens.table_text(game)
    ended = next((events for events in reversed(moves or [])
                  if any(e["type"] == "trick_over" for e in events)), None)
    if ended is not None:
        text = "\n".join([*notes.step_lines(game, ended), "", text])
    if mention and (line := notes.turn_line(game)):
        text += "\n" + line
    return text


@in_seat_language
def peek_alert(game: GameSnapshot, seat: int) -> str:
    """👀 on the table: the reader's own hand, plain text within 200 characters."""
    hand = _engine().view(game.state or {}, seat)["hand"] or []
    text = _("Your hand: {cards}").format(cards=hand_label(hand)) if hand else \
        _("Your hand is empty.")
    return text if len(text) <= ALERT_LIMIT else text[:ALERT_LIMIT - 1] + "…"


@in_seat_language
def private_rows(game: GameSnapshot, seat: int, selection: int = 0) -> Rows:
    """``seat``'s move buttons (their language)."""
    return keyboards.move_rows(game, seat, selection)


@in_chat_language
def report(game: GameSnapshot, steps: list[Any], held: list[str] | None = None,
           mention: bool = True) -> Report:
    """The group note of ``steps``; see :meth:`KoiraUI.report`."""
    events = [e for step in steps for e in step.events]
    over = any(e["type"] == "game_over" for e in events)
    closed = None
    if any(e["type"] == "phase_changed" for e in events):
        closed = 1
    if over:
        closed = (game.state or {}).get("phase", 1)
    new_table = not over and any(e["type"] == "trick_started" for e in events)
    moves = [(replace(game, state=step.state), step.events) for step in steps]
    # as Coyote's new round: a new table mentions who acts (table_text(mention=True)); a
    # note within a trick carries the trick so far, since the table is not edited
    lines = list(held or []) + notes.report_lines(
        game, moves, mention=mention and not new_table,
        trick=not new_table and not over)
    return Report(lines, closed, new_table)


@in_chat_language
def untold_lines(game: GameSnapshot, logged: list[Events]) -> list[str]:
    """Every logged move's lines (Koira's moves are short; nothing is summarised)."""
    return [line for events in logged for line in notes.step_lines(game, events)]


@in_chat_language
def turn_line(game: GameSnapshot) -> str | None:
    """``➡️ @next, your turn.``"""
    return notes.turn_line(game)


@in_chat_language
def game_over_text(game: GameSnapshot) -> str:
    """The places and the koira."""
    return notes.game_over_text(game)


@in_seat_language
def typed(game: GameSnapshot, seat: int, text: str) -> Action | str:
    """A typed play (``7H``, ``10♠``, ``♡7``, ``5h 6h 7h``) of cards the player holds, if the
    engine takes it; if it refuses it, its reason (the card does not beat the top, the cards
    are no sequence, phase 1 plays one card) as :mod:`errors` words it. Else a hint: which
    of the cards typed the player does not hold, or how to type a card."""
    words = text.translate(SEPARATORS).split()
    cards = [card for word in words if (card := typed_card(word)) is not None]
    if cards and len(cards) == len(words):
        cards = list(dict.fromkeys(cards))  # (a card typed twice is that card)
        try:
            hand = _engine().view(game.state or {}, seat)["hand"]
        except RuleError:  # no seat of this game
            hand = None
        if hand is not None:
            missing = [c for c in cards if c not in hand]
            if missing:  # real cards, but not theirs: say so rather than how to type one
                return _("You don't hold {cards}.").format(cards=cards_label(missing))
            action = Action("play", cards=tuple(sorted(cards, key=sort_key)))
            try:
                _engine().apply(game.state or {}, seat, action)
            except RuleError as exc:  # held, but refused: why, not how to type a card
                return errors.error_text(exc.code, exc.detail)
            return action
    return _("Tap a card on the keyboard of your message, or type one such as 7H or 10S "
             "(a sequence: 5H 6H 7H).")


class KoiraUI:
    """Koira's Telegram face (:class:`telegram_app.games.base.GameUI`)."""

    kind = "koira"
    verbs = dict(keyboards.VERBS_ARITY)
    peek = True
    page = PageTable(page_table.table, page_table.controls, page_table.recent,
                     page_table.replay_marks, page_table.replay_cards)
    page_scripts: Path | None = Path(__file__).resolve().parent / "static"  # its table.js
    """👀 on the table shows the reader their own hand (for a player without the private
    chat open)."""

    # --- names and settings ----------------------------------------------------------------
    def game_name(self) -> str:
        """``Koira``."""
        return option_texts.game_name()

    def help_lines(self) -> tuple[str | None, str | None]:
        """Koira's line in /start's answer and in /help."""
        return (_("I also run 🐕 <b>Koira</b>: /newgame koira, /rules koira."),
                _("🐕 <b>Koira</b>: /newgame koira opens its lobby, /rules koira explains it, "
                  "/standings koira and /top koira show its own league."))

    def confirm_text(self, on: bool | None) -> str | None:
        return None  # (no move ends a phase on its own: none asks to be confirmed)

    def title(self, options: dict[str, Any]) -> str:
        """The game's name (its options are not part of a game's title)."""
        return option_texts.game_name()

    def setting_label(self, spec: OptionSpec, value: Any, options: dict[str, Any]) -> str:
        """See :func:`telegram_app.games.koira.option_texts.setting_label`."""
        return option_texts.setting_label(spec, value)

    # --- lobby ---------------------------------------------------------------------------
    def lobby_text(self, game: GameSnapshot, reachable: set[int]) -> str:
        """See :func:`lobby_text`."""
        return lobby_text(game, reachable)

    def option_label(self, game: GameSnapshot, spec: OptionSpec, value: Any) -> str:
        """See :func:`telegram_app.games.koira.option_texts.option_label`."""
        return option_label(game, spec, value)

    def lobby_closed_text(self, game: GameSnapshot, *, reader: PlayerInfo | None = None) -> str:
        """See :func:`lobby_closed_text`."""
        return lobby_closed_text(game, reader=reader)

    def lobby_expired_text(self, game: GameSnapshot) -> str:
        """See :func:`lobby_expired_text`."""
        return lobby_expired_text(game)

    def new_game_options(self, args: list[str]) -> dict[str, Any] | str:
        """``/newgame koira [tie_split] [trump_ends_trick] [pickup_single] [2|3]``: the
        options, or the refusal naming the first unknown word."""
        options: dict[str, Any] = {}
        for word in args:
            if word.lower() not in NEW_GAME_WORDS:
                return _("I do not know the Koira option “{word}”. Options: tie_split, "
                         "trump_ends_trick, pickup_single, 3 (sequences of 3 or more).").format(
                    word=escape(plain_name(word, 24), quote=False))
            name, value = NEW_GAME_WORDS[word.lower()]
            options[name] = value
        return options

    # --- the group's table ---------------------------------------------------------------
    def table_text(self, game: GameSnapshot, *, mention: bool = False,
                   moves: list[Events] | None = None) -> str:
        """The trick so far, trump, counts, whose turn (:func:`screens.table_text`); the
        trick on it tells the moves (``moves`` unused)."""
        return table_text(game, mention, moves)

    def closed_table_text(self, game: GameSnapshot, moves: list[Events],
                          unseen: int | None) -> str:
        """The phase's heading and that it is over (:func:`screens.closed_table_text`)."""
        later = moves[len(moves) - unseen:] if unseen else []
        changed = any(e["type"] == "phase_changed" for events in later for e in events)
        return screens.closed_table_text(game, changed)

    def peek_alert(self, game: GameSnapshot, seat: int) -> str | None:
        """The reader's own hand (:func:`peek_alert`)."""
        return peek_alert(game, seat)

    def table_rows(self, game: GameSnapshot) -> Rows:
        """None: the moves are in the private chats."""
        return []

    # --- a player's private message ------------------------------------------------------
    def in_hand(self, game: GameSnapshot, seat: int) -> bool:
        """Still in the game (neither out of cards nor removed)."""
        return bool(game.state) and seat in _engine().still_playing(game.state)

    def out_text(self, game: GameSnapshot, seat: int) -> str | None:
        """Out of cards: safe, and in which place (not "out of this game", which reads as
        having left or been removed)."""
        out = (game.state or {}).get("out") or []
        return _("You are out of cards: you are safe ({place}).").format(
            place=screens.ordinal(out.index(seat) + 1)) if seat in out else None

    def private_text(self, game: GameSnapshot, seat: int, *, in_group: bool = False) -> str:
        """See :func:`screens.private_text`."""
        return screens.private_text(game, seat, in_group=in_group)

    def private_rows(self, game: GameSnapshot, seat: int) -> Rows:
        """The moves on ``seat``'s turn (a card a tap, the stock, the pick-up, a sequence
        by selection); none off-turn: the hand is in the text."""
        return private_rows(game, seat)

    def private_closed_text(self, game: GameSnapshot, hand: int, *,
                            reader: PlayerInfo | None = None) -> str:
        """``🐕 Koira #id · phase n is over``."""
        return screens.private_closed_text(game, hand, reader=reader)

    def private_cancelled_text(self, game: GameSnapshot, *, reader: PlayerInfo | None) -> str:
        """The cancelled lobby's text under the group's name."""
        from telegram_app.render.place import with_place

        return with_place(game, lobby_closed_text(game, reader=reader))

    def redraw_seats(self, game: GameSnapshot, events: Events) -> set[int] | None:
        """The seats whose hand the move changed (played, picked up, drew, went out, hold
        the face-up trump); every seat when phase 2 begins."""
        if any(e["type"] == "phase_changed" for e in events):
            return None
        return {e["seat"] for e in events if e["type"] in REDRAWN and e.get("seat") is not None}

    # --- reports ---------------------------------------------------------------------------
    def report(self, game: GameSnapshot, steps: list[Any], held: list[str] | None = None, *,
               mention: bool = True) -> Report:
        """Each move's note (:func:`notes.report_lines`), the end, then within a trick the
        trick so far and the mention of the player to act (but when a new table follows: it
        mentions them, :meth:`table_text` with ``mention``). ``closed``: 1 when phase 2
        begins, the phase the game ended in; ``new_table``: a trick began."""
        return report(game, steps, held, mention)

    def untold_lines(self, game: GameSnapshot, logged: list[Events]) -> list[str]:
        """See :func:`untold_lines`."""
        return untold_lines(game, logged)

    def keeps_turn(self, game: GameSnapshot, steps: list[Any]) -> bool:
        """Never: a Koira turn is one action."""
        return False

    def still_acting(self, game: GameSnapshot, logged: list[Events]) -> bool:
        """Never (see :meth:`keeps_turn`)."""
        return False

    def opens_table(self, events: Events) -> bool:
        """A trick began (and the game goes on)."""
        return any(e["type"] == "trick_started" for e in events) and \
            not any(e["type"] == "game_over" for e in events)

    def deals_hand(self, events: Events) -> bool:
        """The cards were dealt, or phase 2 began (and the game goes on)."""
        return any(e["type"] in ("game_dealt", "phase_changed") for e in events) and \
            not any(e["type"] == "game_over" for e in events)

    def turn_line(self, game: GameSnapshot) -> str | None:
        """``➡️ @next, your turn.``"""
        return turn_line(game)

    def game_over_text(self, game: GameSnapshot) -> str:
        """The placements in going-out order and the koira (R16)."""
        return game_over_text(game)

    def replay_lines(self, game: GameSnapshot, logged: list[Events]) -> list[str]:
        """One line per trick, the trump, the phase change and the koira."""
        lines, end = replay.replay_lines(game, logged)
        return lines + end

    # --- input -----------------------------------------------------------------------------
    def direct_action(self, press: Press) -> Action | None:
        """The stock and the pick-up need no reading of the game (the engine refuses them
        when they are not allowed); a card press names hand indexes: ``None``."""
        return {"kw": Action("stock"), "kh": Action("pickup")}.get(press.verb) \
            if press.args and len(press.args) == 1 else None

    def press(self, game: GameSnapshot, press: Press, seat: int | None, in_group: bool
              ) -> Action | Rows:
        """A play, the stock or the pick-up; a selection redraws the keyboard with its
        ticks. Raises ``ServiceError`` (``bad_button``, ``stale``, ``not_your_turn``,
        ``not_a_player`` for a presser with no seat)."""
        if in_group:  # Koira's table carries no move buttons
            raise ServiceError("bad_button")
        if seat is None:
            raise ServiceError("not_a_player")
        cb = keyboards.KoiraCallback.of(press.verb, press.game_id, press.args)
        try:
            decoded = keyboards.check(cb, game, seat)
        except keyboards.ButtonError as exc:
            raise ServiceError(exc.code) from None
        if isinstance(decoded, keyboards.Selection):
            return private_rows(game, seat, decoded.mask)
        return decoded

    def typed(self, game: GameSnapshot, seat: int, text: str) -> Action | str:
        """See :func:`typed`."""
        return typed(game, seat, text)

    def typed_choose_text(self, games: list[GameSnapshot]) -> str:
        """Several games wait for the sender: reply to the one meant."""
        return _("It is your turn in games {ids}: reply to that game's message with your "
                 "card (or use its buttons).").format(ids=join_list(f"#{g.id}" for g in games))

    def rules_text(self, args: list[str], options: dict[str, Any] | None = None) -> str:
        """See :func:`rules.rules_text`; ``args`` (``/rules koira 3``) read as /newgame's
        options when no game's are given (words it does not know: the defaults)."""
        if options is None and args:
            asked = self.new_game_options(args)
            options = asked if isinstance(asked, dict) else None
        return rules.rules_text(options)

    def error_text(self, code: str, detail: dict[str, Any]) -> str | None:
        """Koira's own refusals (:data:`errors.OWN_CODES`); ``None`` for others."""
        return errors.error_text(code, detail) if code in errors.OWN_CODES else None



KOIRA = KoiraUI()
"""The one instance to register."""
