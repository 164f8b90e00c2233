"""The interface every game implements, modelled on OpenSpiel's Python games.

A game is a stateless rules object; a state is plain data (dicts, lists, ints, strings) that
serialises to JSON and back without loss. Chance is an explicit input: a game draws from
:func:`rng_for` (seed, step), never from the global ``random`` module.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any, Protocol

JSON = dict[str, Any]


class RuleError(Exception):
    """An action the rules forbid.

    ``code`` is a stable machine-readable reason (``"not_your_turn"``, ``"bid_too_low"``, …) that
    callers map to a translated message; ``detail`` carries the numbers the message needs
    (for example ``{"min_bid": 7}``).
    """

    def __init__(self, code: str, **detail: Any) -> None:
        super().__init__(code if not detail else f"{code} {detail}")
        self.code = code
        self.detail = detail


@dataclass(frozen=True)
class Action:
    """One player's move.

    ``kind`` names it (``"bid"``, ``"call"``, ``"special"``); ``amount`` is a bid's number;
    ``special`` names a special action (a Coyote mask or coin: ``"pass"``, ``"double"``,
    ``"draw1"``, ``"shot"``, ``"reverse"``, ``"change"``, ``"extra"``, ``"skip"``, ``"swap"``,
    ``"guess"``); ``target`` is a seat the special acts on; ``guess`` a card in rules notation.
    ``cards`` are the cards a card-play game's move plays, in rules notation (Koira:
    ``Action("play", cards=("7H",))``). Serialises to a JSON object holding only the fields
    that are set.
    """

    kind: str
    amount: int | None = None
    special: str | None = None
    target: int | None = None
    guess: str | None = None
    cards: tuple[str, ...] | None = None

    def to_json(self) -> JSON:
        """Return the action as a JSON object (unset fields omitted; ``cards`` as a list)."""
        data: JSON = {"kind": self.kind}
        for key in ("amount", "special", "target", "guess"):
            value = getattr(self, key)
            if value is not None:
                data[key] = value
        if self.cards is not None:
            data["cards"] = list(self.cards)
        return data

    @classmethod
    def from_json(cls, data: JSON) -> Action:
        """Build an action from :meth:`to_json` output; raises ``RuleError("bad_action")``."""
        if not isinstance(data, dict) or not isinstance(data.get("kind"), str):
            raise RuleError("bad_action")
        for key in ("amount", "target"):
            value = data.get(key)
            if value is not None and (not isinstance(value, int) or isinstance(value, bool)):
                raise RuleError("bad_action")
        for key in ("special", "guess"):
            if data.get(key) is not None and not isinstance(data[key], str):
                raise RuleError("bad_action")
        cards = data.get("cards")
        if cards is not None:
            if not isinstance(cards, list | tuple) or not all(isinstance(c, str) for c in cards):
                raise RuleError("bad_action")
            cards = tuple(cards)
        return cls(data["kind"], data.get("amount"), data.get("special"), data.get("target"),
                   data.get("guess"), cards)


PLAYER_REMOVED = "player_removed"
"""Event: a seat left the game (a leave, or too many timeouts): ``{"seat"}``."""
ROUND_OVER = "round_ended"
"""Event: a round of a round-based game ended (Coyote's showdown round)."""
TRICK_OVER = "trick_over"
"""Event: a trick of a trick-taking game ended (Koira): ``{"phase", "trick", "seat"}``."""
GAME_OVER = "game_over"
"""Event: the game is over: ``{"placements": [place per seat], ...}``."""
TURN_ENDING_EVENTS = frozenset({ROUND_OVER, TRICK_OVER, GAME_OVER})
"""The game-neutral events after which a turn the computer finished for an absent player is
over; a game adds its own in :attr:`Game.turn_ending_events`."""


@dataclass(frozen=True)
class OptionSpec:
    """One lobby option a game offers: ``name`` (the key in ``options``), its allowed
    ``values`` (the default among them), the ``default`` and ``label``, a key the bot maps
    to a translated label."""

    name: str
    values: tuple[Any, ...]
    default: Any
    label: str

    def to_json(self) -> JSON:
        """``{"name", "values": [...], "default", "label"}``."""
        return {"name": self.name, "values": list(self.values), "default": self.default,
                "label": self.label}


@dataclass(frozen=True)
class Event:
    """A past-tense record of what happened (``"bid_placed"``, ``"showdown"``, …).

    ``data`` holds only public information: events are stored in the league's log and shown to
    the whole group, so they never carry a card that is still hidden.
    """

    type: str
    data: JSON = field(default_factory=dict)

    def to_json(self) -> JSON:
        """Return ``{"type": ..., **data}``."""
        return {"type": self.type, **self.data}


def rng_for(seed: int, step: int) -> random.Random:
    """A generator for the chance event at ``step`` of the game seeded with ``seed``.

    Seeding from the string ``"seed:step"`` is stable across Python versions and processes
    (string seeds are hashed with SHA-512), unlike ``hash()``.
    """
    return random.Random(f"{seed}:{step}")


def step_of(state: JSON) -> int:
    """The number of actions applied to ``state`` (0 after the deal): every game's state
    holds it as ``"step"``, the step its chance draws from (:func:`rng_for`). The league
    numbers its log by it and seeds its computer players' choices with it."""
    return int(state["step"])


class LazyRandom:
    """:func:`rng_for` created on first use: most moves (a bid) draw nothing, and seeding a
    generator from a string costs more than the rest of such a move."""

    def __init__(self, seed: int, step: int) -> None:
        self._args = (seed, step)
        self._rng: random.Random | None = None

    def __getattr__(self, name: str) -> Any:
        if self._rng is None:
            self._rng = rng_for(*self._args)
        return getattr(self._rng, name)


class Game(Protocol):
    """What every game offers the league. ``state`` is always a JSON-ready ``dict``."""

    name: str
    ai_levels: tuple[str, ...]
    """The levels :meth:`ai_action` accepts, weakest first."""
    turn_ending_events: frozenset[str]
    """Events after which a turn the computer finished for an absent player is over (the
    league's stand-in plays no further for them): :data:`TURN_ENDING_EVENTS` and the game's
    own."""
    answer_events: frozenset[str]
    """Events of a move another seat makes inside someone's turn, as an answer it owes them
    (Coyote's Change is answered with a new bid, after which the changer acts on): that
    turn goes on, with its clock. Empty for most games."""

    def new_game(self, seats: int, seed: int,
                 options: JSON | None = None) -> tuple[JSON, list[Event]]:
        """Deal a new game for ``seats`` players: the state and the events of the deal.

        Raises ``RuleError`` on a bad player count or option.
        """
        ...

    def player_limits(self, options: JSON | None = None) -> tuple[int, int]:
        """The (min, max) number of players for these options; raises ``RuleError``."""
        ...

    def current_seat(self, state: JSON) -> int | None:
        """The seat to act, or ``None`` when the game is over."""
        ...

    def legal_actions(self, state: JSON, seat: int) -> list[Action]:
        """A finite list of legal actions for ``seat`` (empty when it is not their turn)."""
        ...

    def apply(self, state: JSON, seat: int, action: Action) -> tuple[JSON, list[Event]]:
        """Return the new state and the events; the input state is left unchanged.

        Raises ``RuleError`` when the action is illegal, and then nothing has changed.
        """
        ...

    def view(self, state: JSON, seat: int | None) -> JSON:
        """What ``seat`` may see (``None``: the public table). Never a card hidden from them."""
        ...

    def option_choices(self, options: JSON | None = None) -> dict[str, list[Any]]:
        """Settable lobby options and their allowed values, the default first."""
        ...

    def ai_action(self, view: JSON, rng: random.Random, level: str = "normal") -> Action:
        """A computer player's action, from a seat's view only, with a seeded generator;
        ``level`` names its strength, one of the game's ``ai_levels`` (``"normal"`` always
        exists)."""
        ...

    def placements(self, state: JSON) -> list[int] | None:
        """Per seat, the place (1 = best, ties share a place) once over; else ``None``."""
        ...

    # --- game-neutral queries the league uses instead of reading a state -------------------
    def is_over(self, state: JSON) -> bool:
        """Whether the game has ended (then :meth:`placements` is set)."""
        ...

    def still_playing(self, state: JSON) -> list[int]:
        """The seats still in the game (not eliminated, out or removed), in seat order."""
        ...

    def progress(self, state: JSON) -> JSON:
        """A small public marker of how far the game is, for the bot to show and to tell
        turns apart (Coyote ``{"round": n}``, Koira ``{"phase": p, "trick": n}``)."""
        ...

    def option_specs(self, options: JSON | None = None) -> list[OptionSpec]:
        """The lobby options for these options (an edition, say), described for any UI."""
        ...

    def setting_specs(self, options: JSON | None = None) -> list[OptionSpec]:
        """The options a chat may preset for its new games of this kind: those chosen when
        a game is opened (Coyote's edition), then :meth:`option_specs` for ``options``."""
        ...

    def hand_number(self, state: JSON) -> int:
        """Increases each time every player's hand is replaced (a new deal); 0 before the
        first. A new hand number means every player gets a new private message."""
        ...

    def stand_in_action(self, state: JSON, seat: int, rng: random.Random,
                        level: str = "normal") -> Action:
        """What the computer plays for ``seat``, a human who is absent (their turn timed
        out), at ``level`` (one of :attr:`ai_levels`): from that seat's view only, and never
        a move a player would want to decide themselves when it hands the turn back to them
        unfinished."""
        ...
