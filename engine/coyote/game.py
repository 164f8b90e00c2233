"""The Coyote game: bids, Coyote calls and special actions, for every edition.

Source: ``shared/rules/coyote.md``; round mechanics live in :mod:`engine.coyote.flow`, special
actions in :mod:`engine.coyote.specials`, edition differences in
:class:`engine.coyote.editions.Edition`.

State (a JSON object)::

    {"game": "coyote", "edition": str,
     "options": {"lives": int, "specials": bool, "after_elimination": "winner" | "next"},
     "seed": int, "step": int, "seats": int, "lives": [int], "hands": [card or None],
     "draw": [cards, top first], "discard": [cards], "round": int, "starter": seat,
     "discard_unseen": [[seat, index]] (the cards of "discard", by index, that seat never
         saw: its feather swapped away in a round a wrong Guess ended; emptied with the
         discard pile; absent in older states: []),
     "turn": seat or None, "direction": 1 or -1, "bids": [[seat, amount], ...],
     "out": [seats in elimination order], "over": bool,
     # this round's specials:
     "extra": [[cards] per seat] (Draw 1: hidden from their holder),
     "face_up": [[cards] per seat] (Extra feather: seen by all),
     "void": [[cards] per seat] (swapped away: not counted, hidden from their holder),
     "revealed": [bool] (own card face up after a right Guess), "safe": [bool],
     "masks": [bool] (mask still available), "coins": [names still in the pool],
     "draw1_used": bool, "pass_blocked": bool, "double": seat or None,
     "change": {"by": seat, "target": seat} or None, "must_bid": bool,
     "coin_turn": seat or None,
     "reshuffle_due": true (only while a removed player's ``night``/``0b`` has left this
         round's table: the round's end still reshuffles every card; absent otherwise)}
"""

from __future__ import annotations

from typing import Any

from engine.core import (
    JSON,
    TURN_ENDING_EVENTS,
    Action,
    Event,
    LazyRandom,
    OptionSpec,
    RuleError,
    rng_for,
)
from engine.coyote import flow, specials
from engine.coyote.editions import BID_SPECIALS, EDITIONS, MAX_BID, get_edition

BID_WINDOW = 30
"""How many bids :meth:`CoyoteGame.legal_actions` lists; any higher whole number is legal too."""
SPECIAL_BID_WINDOW = 3
"""How many bids :meth:`CoyoteGame.legal_actions` lists with each bid mask and target."""


class CoyoteGame:
    """Coyote for every edition, as the :class:`engine.core.Game` interface."""

    name = "coyote"
    ai_levels: tuple[str, ...] = ("easy", "normal", "hard")
    """The computer player's levels, weakest first (:mod:`engine.coyote.ai_levels`)."""
    turn_ending_events: frozenset[str] = TURN_ENDING_EVENTS | {"showdown", "round_dealt"}
    """A showdown, or the next round's deal, ends a stand-in's turn (rules, "A round")."""
    answer_events: frozenset[str] = frozenset({"bid_changed"})
    """A Change is answered with a new bid by the last bidder; the changer's turn goes on
    (the Change mask, rules/coyote.md)."""

    # --- creation -------------------------------------------------------------------------
    def new_state(self, seats: int, seed: int, options: JSON | None = None) -> JSON:
        """The state of :meth:`new_game`, without its events."""
        return self.new_game(seats, seed, options)[0]

    def new_game(self, seats: int, seed: int,
                 options: JSON | None = None) -> tuple[JSON, list[Event]]:
        """Deal round 1; return the state and its events (``round_dealt``).

        ``options``: ``{"edition": name, "lives": n, "specials": bool,
        "after_elimination": "winner" | "next"}`` (all optional).
        Raises ``RuleError("bad_player_count", min=, max=)``, ``("bad_lives", min=, max=)``,
        ``("lives_need_fewer_players", lives=, max=)`` (feathers: 4 or 5 coins with 3–4
        players only), ``("bad_option")`` or ``("unknown_edition")``.
        """
        options = dict(options or {})
        edition = get_edition(options.pop("edition", "classic"))
        if (not isinstance(seats, int) or isinstance(seats, bool)
                or not edition.min_players <= seats <= edition.max_players):
            raise RuleError("bad_player_count", min=edition.min_players, max=edition.max_players)
        lives = options.get("lives", edition.lives)
        low, high = edition.lives_range
        if not isinstance(lives, int) or isinstance(lives, bool) or not low <= lives <= high:
            raise RuleError("bad_lives", min=low, max=high)
        most = edition.more_lives_max_players
        if lives > edition.lives and most is not None and seats > most:
            raise RuleError("lives_need_fewer_players", lives=lives, max=most)
        use_specials = options.get("specials", False)
        if not isinstance(use_specials, bool) or (use_specials and edition.specials is None):
            raise RuleError("bad_option", option="specials")
        after = options.get("after_elimination", (edition.after_elimination or ("winner",))[0])
        if after not in (edition.after_elimination or ("winner",)):
            raise RuleError("bad_option", option="after_elimination")
        rng = rng_for(seed, 0)
        state: JSON = {
            "game": self.name, "edition": edition.name,
            "options": {"lives": lives, "specials": use_specials,
                        "after_elimination": after}, "seed": seed, "step": 0,
            "seats": seats, "lives": [lives] * seats, "hands": [None] * seats,
            "draw": flow.shuffled(list(edition.deck), rng), "discard": [],
            "discard_unseen": [], "round": 0,
            "starter": rng.randrange(seats), "turn": None, "out": [], "over": False,
        }
        flow.reset_round(state, edition)
        events: list[Event] = []
        flow.deal(state, edition, rng, events)
        return state, events

    def player_limits(self, options: JSON | None = None) -> tuple[int, int]:
        """(min, max) players of the edition named in ``options`` (default classic), with
        its lives: more lives than the edition's own only for fewer players (feathers: 4 or 5
        coins with 3–4 players), as :meth:`new_game` checks."""
        edition = get_edition((options or {}).get("edition", "classic"))
        lives = (options or {}).get("lives", edition.lives)
        most = edition.more_lives_max_players
        if most is not None and isinstance(lives, int) and lives > edition.lives:
            return edition.min_players, min(most, edition.max_players)
        return edition.min_players, edition.max_players

    def option_choices(self, options: JSON | None = None) -> dict[str, list[Any]]:
        """The lobby's settable options for this edition and their allowed values, default
        first: ``{"lives": [3, 2, 4, 5], "specials": [False, True], "after_elimination":
        ["winner", "next"]}`` (only the options the edition has)."""
        edition = get_edition((options or {}).get("edition", "classic"))
        low, high = edition.lives_range
        lives = [edition.lives] + [n for n in range(low, high + 1) if n != edition.lives]
        choices: dict[str, list[Any]] = {"lives": lives}
        if edition.specials is not None:
            choices["specials"] = [False, True]
        if edition.after_elimination:
            choices["after_elimination"] = list(edition.after_elimination)
        return choices

    def option_specs(self, options: JSON | None = None) -> list[OptionSpec]:
        """:meth:`option_choices` described for any UI: name, allowed values, default and
        label key (``option_lives``, ``option_specials``, ``option_after_elimination``)."""
        return [OptionSpec(name, tuple(values), values[0], f"option_{name}")
                for name, values in self.option_choices(options).items()]

    def ai_action(self, view: JSON, rng: Any, level: str = "normal") -> Action:
        """A computer player's action from ``view`` (a seat's view) and a seeded ``rng``.
        ``level``: ``"easy"``, ``"normal"`` or ``"hard"`` (``engine.coyote.ai_levels``);
        raises ``ValueError`` for another."""
        from engine.coyote.ai_levels import choose  # the AI imports this module

        return choose(view, rng, level)

    def stand_in_action(self, state: JSON, seat: int, rng: Any,
                        level: str = "normal") -> Action:
        """The computer's action for ``seat``, a human whose turn timed out (at ``level``):
        as for its own
        seat, but it leaves their mask alone (a Change would hand their turn to another
        player and back, unfinished). The league's ``plan_replies`` rule, moved here."""
        view = self.view(state, seat)
        if view.get("masks"):
            view["masks"] = [m and s != seat for s, m in enumerate(view["masks"])]
        return self.ai_action(view, rng, level)

    def setting_specs(self, options: JSON | None = None) -> list[OptionSpec]:
        """``edition`` (chosen when a game is opened: ``/newgame feathers``), then
        :meth:`option_specs` for that edition."""
        editions = tuple(EDITIONS)
        return [OptionSpec("edition", editions, editions[0], "option_edition"),
                *self.option_specs(options)]

    def hand_number(self, state: JSON) -> int:
        """The round number: every round deals each player a new card (0 before the first)."""
        return int(state["round"])

    def specials_kind(self, options: JSON | None = None) -> str | None:
        """``"masks"``, ``"coins"`` or ``None``: the special actions the edition offers."""
        return get_edition((options or {}).get("edition", "classic")).specials

    # --- queries --------------------------------------------------------------------------
    def current_seat(self, state: JSON) -> int | None:
        """The seat to act, ``None`` once the game is over."""
        return None if state["over"] else state["turn"]

    def min_bid(self, state: JSON) -> int:
        """The lowest legal bid now: 1 to open, else the last bid + 1."""
        return state["bids"][-1][1] + 1 if state["bids"] else 1

    def can_call(self, state: JSON, seat: int) -> bool:
        """Whether ``seat`` may call Coyote now (:func:`engine.coyote.flow.may_call`)."""
        return flow.may_call(state, seat)

    def legal_actions(self, state: JSON, seat: int) -> list[Action]:
        """Every legal action of ``seat`` (empty off-turn), with bids limited to
        :data:`BID_WINDOW` (:data:`SPECIAL_BID_WINDOW` with a mask); higher bids up to
        :data:`~engine.coyote.editions.MAX_BID` are legal too.
        """
        if self.current_seat(state) != seat:
            return []
        actions = [Action("call")] if self.can_call(state, seat) else []
        low = self.min_bid(state)
        actions += [Action("bid", n) for n in range(low, min(low + BID_WINDOW, MAX_BID + 1))]
        if state["change"] is not None:
            return actions
        edition = get_edition(state["edition"])
        mode = specials.specials_mode(state, edition)
        candidates: list[Action] = []
        if mode == "masks" and state["masks"][seat]:
            candidates += [Action("special", special=n) for n in specials.STANDALONE_MASKS]
            others = [s for s in flow.alive(state) if s != seat]
            for n in range(low, min(low + SPECIAL_BID_WINDOW, MAX_BID + 1)):
                candidates.append(Action("bid", n, special="double"))
                for target in others:
                    candidates.append(Action("bid", n, special="draw1", target=target))
                    candidates.append(Action("bid", n, special="shot", target=target))
        elif mode == "coins":
            for name in state["coins"]:
                if name == "guess":
                    candidates += [Action("special", special="guess", guess=c)
                                   for c in sorted(set(edition.deck))]
                else:
                    candidates.append(Action("special", special=name))
        return actions + [a for a in candidates if self._allowed(state, seat, a)]

    def _allowed(self, state: JSON, seat: int, action: Action) -> bool:
        try:
            self.apply(state, seat, action)
        except RuleError:
            return False
        return True

    def is_over(self, state: JSON) -> bool:
        """Whether the game has ended."""
        return bool(state["over"])

    def still_playing(self, state: JSON) -> list[int]:
        """Seats with lives left (:meth:`alive`)."""
        return flow.alive(state)

    def progress(self, state: JSON) -> JSON:
        """``{"round": n}``: the round being played (from 1)."""
        return {"round": state["round"]}

    def alive(self, state: JSON) -> list[int]:
        """Seats still in the game, in seat order."""
        return flow.alive(state)

    def placements(self, state: JSON) -> list[int] | None:
        """Per seat, the final place (1 = winner; ties share the better place), or ``None``."""
        return flow.placements(state)

    def view(self, state: JSON, seat: int | None) -> JSON:
        """What ``seat`` may see; ``seat=None`` is the public table.

        ``change_may_call``: the player answering a Change may call Coyote on the bid before
        theirs; ``coins_usable``: coins may be used at all (more than two players left).
        ``cards``: every seat's own card, ``None`` where hidden from the viewer (their own,
        unless a right Guess turned it face up; publicly, all but those). ``extra``: Draw 1
        cards, ``None`` where hidden (the viewer's own); ``face_up``: seen by all; ``void``:
        swapped-away cards, ``None`` for the viewer's own. The draw pile is only a count.
        ``discard``: the discard pile, ``None`` for a card the viewer never saw (its own
        feather swapped away in a round a wrong Guess ended; publicly, every such card).
        Raises ``RuleError("bad_seat")``.
        """
        if seat is not None and (not isinstance(seat, int) or not 0 <= seat < state["seats"]):
            raise RuleError("bad_seat")

        def seen(owner: int) -> bool:
            return seat is not None and owner != seat

        edition = get_edition(state["edition"])
        turn = self.current_seat(state)
        unseen = {i for s, i in state.get("discard_unseen", ()) if not seen(s)}
        return {
            "game": self.name, "edition": state["edition"], "seat": seat,
            "seats": state["seats"], "round": state["round"], "turn": turn,
            "direction": state["direction"], "bids": [list(b) for b in state["bids"]],
            "lives": list(state["lives"]), "max_lives": state["options"]["lives"],
            "cards": [c if c is not None and (seen(s) or state["revealed"][s]) else None
                      for s, c in enumerate(state["hands"])],
            "in_play": [c is not None for c in state["hands"]],
            "extra": [[c if seen(s) else None for c in cards]
                      for s, cards in enumerate(state["extra"])],
            "face_up": [list(cards) for cards in state["face_up"]],
            "void": [[c if seen(s) else None for c in cards]
                     for s, cards in enumerate(state["void"])],
            "safe": list(state["safe"]), "draw_count": len(state["draw"]),
            "discard": [None if i in unseen else c for i, c in enumerate(state["discard"])],
            "min_bid": self.min_bid(state),
            "can_call": seat is not None and turn == seat and self.can_call(state, seat),
            "specials": specials.specials_mode(state, edition), "masks": list(state["masks"]),
            "coins": list(state["coins"]), "coins_usable": specials.coins_usable(state),
            "draw1_used": state["draw1_used"],
            "pass_blocked": state["pass_blocked"], "double": state["double"],
            "change": dict(state["change"]) if state["change"] else None,
            "change_may_call": state["change"] is not None and self.can_call(
                state, state["change"]["target"]),
            "must_bid": state["must_bid"], "coin_turn": state["coin_turn"],
            "over": state["over"], "placements": self.placements(state),
        }

    # --- the move -------------------------------------------------------------------------
    def apply(self, state: JSON, seat: int, action: Action) -> tuple[JSON, list[Event]]:
        """Apply ``seat``'s action; the input state is not modified.

        Raises ``RuleError`` (codes: ``game_over``, ``not_your_turn``, ``bad_action``,
        ``bid_too_low`` with ``min_bid``, ``bid_too_high`` with ``max`` (:data:`MAX_BID`),
        ``no_bid_to_call``, ``own_bid``, ``must_bid``,
        ``must_answer_change``, and the special actions' codes in
        :mod:`engine.coyote.specials`). On error nothing has changed.
        """
        if state["over"]:
            raise RuleError("game_over")
        if action.kind == "resign":
            if action != Action("resign"):
                raise RuleError("bad_action")
            return flow.resign(state, seat)
        if seat != state["turn"]:
            raise RuleError("not_your_turn")
        if state["lives"][seat] == 0:  # a removed or eliminated seat never acts
            raise RuleError("not_a_player")
        edition = get_edition(state["edition"])
        new = flow.copy_state(state)
        new["step"] += 1
        rng: Any = LazyRandom(new["seed"], new["step"])  # a random.Random to its callers
        events: list[Event] = []
        if action.kind == "bid":
            self._bid(new, seat, action, rng, events)
        elif action.kind == "call":
            self._call(new, seat, action, rng, events)
        elif action.kind == "special" and action.special is not None and \
                action.amount is None:
            specials.use(new, seat, edition, action, rng, events)
        else:
            raise RuleError("bad_action")
        return new, events

    def _bid(self, state: JSON, seat: int, action: Action, rng: Any,
             events: list[Event]) -> None:
        amount = action.amount
        if not isinstance(amount, int) or isinstance(amount, bool) or action.guess is not None:
            raise RuleError("bad_action")
        if amount < self.min_bid(state):
            raise RuleError("bid_too_low", min_bid=self.min_bid(state))
        if amount > MAX_BID:
            raise RuleError("bid_too_high", max=MAX_BID)
        change = state["change"]
        if change is not None:
            if action.special is not None or action.target is not None:
                raise RuleError("must_answer_change")
            state["bids"][-1] = [seat, amount]
            state["change"] = None
            state["double"] = None
            events.append(Event("bid_changed", {"seat": seat, "amount": amount}))
            flow.pass_turn(state, change["by"])
            return
        edition = get_edition(state["edition"])
        if action.special is not None and action.special not in BID_SPECIALS:
            raise RuleError("special_not_available", special=action.special)
        if action.special is None and action.target is not None:
            raise RuleError("bad_action")
        specials.check_bid_special(state, seat, edition, action)
        state["bids"].append([seat, amount])
        state["pass_blocked"] = False
        placed: JSON = {"seat": seat, "amount": amount}
        if action.special is not None:
            placed["special"] = action.special
        if action.target is not None:
            placed["target"] = action.target
        events.append(Event("bid_placed", placed))
        flow.pass_turn(state, specials.after_bid(state, seat, action, rng, events))

    def _call(self, state: JSON, seat: int, action: Action, rng: Any,
              events: list[Event]) -> None:
        if action.amount is not None or action.special is not None or \
                action.target is not None or action.guess is not None:
            raise RuleError("bad_action")
        if not state["bids"]:
            raise RuleError("no_bid_to_call")
        if state["must_bid"]:
            raise RuleError("must_bid")
        change = state["change"]
        if change is not None and change["target"] == seat:
            if len(state["bids"]) < 2:
                raise RuleError("no_bid_to_call")
            bidder, bid = state["bids"][-2]
            if bidder == seat:
                raise RuleError("own_bid")
        else:
            bidder, bid = state["bids"][-1]
            if bidder == seat:
                raise RuleError("own_bid")
        lives_lost = 2 if state["double"] == bidder and change is None else 1
        events.append(Event("coyote_called", {"seat": seat, "bidder": bidder, "bid": bid,
                                              "double": lives_lost == 2}))
        flow.showdown(state, seat, bidder, bid, lives_lost, rng, events)
