"""The Koira game, as the :class:`engine.core.Game` interface.

Source: ``shared/rules/koira.md`` (rulings R1–R20), from ``shared/seeds/002_*.txt``. The
deal and state shape live in :mod:`engine.koira.deal`, the phases in
:mod:`engine.koira.phase1` and :mod:`engine.koira.phase2`, what a seat sees in
:mod:`engine.koira.views`.

Actions: ``Action("play", cards=("7H",))`` (one card; in phase 2 also a sequence, lowest
first), ``Action("stock")`` (phase 1: turn up the stock's top and play it),
``Action("pickup")`` (phase 2) and ``Action("resign")`` (the league removes a player).

Events (public data only; ``type`` and fields)::

    game_dealt {dealer, counts, stock}            trick_started {phase, trick, leader}
    card_played {seat, cards, phase, from_stock?}  tie {seats, rank}            (R1)
    trick_over {phase, trick, seat, cards?, shared?, picked_up?, trump_cut?}
        (seat None: a pick-up emptied the trick, R12, or in phase 1 nobody still in the
        game played in it and its cards leave the game; cards absent for a shuffled share;
        trump_cut: a trump ended it before it held its count of cards, R17)
    trick_shared {phase, trick, seats, how: "shuffled" (R3, counts) | "sorted" (R5, shares)}
    cards_drawn {seat, count}                      trump_revealed {seat, card, suit} (R7)
    phase_changed {phase: 2, trump, counts}        picked_up {seat, cards}
    player_out {seat, place}                       player_removed {seat}
    game_over {placements, koira}
"""

from __future__ import annotations

import random
from typing import Any

from engine.core import (
    JSON,
    PLAYER_REMOVED,
    TURN_ENDING_EVENTS,
    Action,
    Event,
    LazyRandom,
    OptionSpec,
    RuleError,
)
from engine.koira import deal, phase1, phase2, views
from engine.koira.cards import is_card, play_beats, sequences, sorted_hand


class KoiraGame:
    """Koira for 3–8 players with its four rule options."""

    name = "koira"
    ai_levels: tuple[str, ...] = ("easy", "normal", "hard")
    """The computer player's levels, weakest first (:mod:`engine.koira.ai_levels`)."""
    turn_ending_events: frozenset[str] = TURN_ENDING_EVENTS
    answer_events: frozenset[str] = frozenset()

    # --- creation -------------------------------------------------------------------------
    def new_game(self, seats: int, seed: int,
                 options: JSON | None = None) -> tuple[JSON, list[Event]]:
        """Deal (see :func:`engine.koira.deal.new_state` for ``deck``/``dealer`` and the
        errors); the player left of the dealer leads the first trick. Events:
        ``game_dealt`` (dealer, counts, stock size), ``trick_started``."""
        state = deal.new_state(seats, seed, options)
        events = [Event("game_dealt", {"dealer": state["dealer"],
                                       "counts": [len(h) for h in state["hands"]],
                                       "stock": len(state["stock"])})]
        phase1.start_trick(state, (state["dealer"] + 1) % seats, events)
        return state, events

    def new_state(self, seats: int, seed: int, options: JSON | None = None) -> JSON:
        """The state of :meth:`new_game`, without its events."""
        return self.new_game(seats, seed, options)[0]

    def player_limits(self, options: JSON | None = None) -> tuple[int, int]:
        """(3, 8) whatever the options; raises ``RuleError("bad_option")`` for bad ones."""
        deal.game_options(options)
        return deal.MIN_PLAYERS, deal.MAX_PLAYERS

    def option_choices(self, options: JSON | None = None) -> dict[str, list[Any]]:
        """``{"tie_split": [False, True], "trump_ends_trick": [False, True], "pickup_single":
        [False, True], "min_sequence": [2, 3]}`` (the default first)."""
        return {s.name: [s.default] + [v for v in s.values if v != s.default]
                for s in deal.OPTION_SPECS}

    def option_specs(self, options: JSON | None = None) -> list[OptionSpec]:
        """The four rule options (:data:`engine.koira.deal.OPTION_SPECS`)."""
        return list(deal.OPTION_SPECS)

    # --- queries --------------------------------------------------------------------------
    def current_seat(self, state: JSON) -> int | None:
        """The seat to act, ``None`` once over."""
        return None if state["over"] else state["turn"]

    def is_over(self, state: JSON) -> bool:
        """Whether the game has ended (only one player left in it, R16)."""
        return bool(state["over"])

    def still_playing(self, state: JSON) -> list[int]:
        """Seats neither out (rid of their cards) nor removed, in seat order."""
        return deal.players_in_game(state)

    def progress(self, state: JSON) -> JSON:
        """``{"phase": 1 | 2, "trick": n}`` (tricks counted over the whole game, from 1)."""
        return {"phase": state["phase"], "trick": state["trick_no"]}

    def setting_specs(self, options: JSON | None = None) -> list[OptionSpec]:
        """Koira has no options chosen when a game is opened: :meth:`option_specs`."""
        return self.option_specs(options)

    def hand_number(self, state: JSON) -> int:
        """The phase (1, 2): in phase 2 "each player takes up the cards they won in phase 1
        as their new hand" (rules, Phase 2), so every hand is replaced once."""
        return int(state["phase"])

    def placements(self, state: JSON) -> list[int] | None:
        """Per seat, 1 = first out … the koira last (:func:`engine.koira.views.placements`)."""
        return views.placements(state)

    def view(self, state: JSON, seat: int | None) -> JSON:
        """What ``seat`` may see (:func:`engine.koira.views.view`)."""
        return views.view(state, seat)

    def legal_actions(self, state: JSON, seat: int) -> list[Action]:
        """Exactly the legal actions of ``seat`` (empty off-turn). Phase 1: each hand card,
        and ``stock`` while it holds at least 2 cards. Phase 2: each card and each sequence
        of the hand (every run of ``min_sequence`` or more, R17: from a 2 with
        ``trump_ends_trick``) that beats the top play (R10; all of them on a lead), and
        ``pickup`` when the trick holds cards (R13, R19)."""
        if self.current_seat(state) != seat:
            return []
        hand = sorted_hand(state["hands"][seat])
        if state["phase"] == 1:
            actions = [Action("play", cards=(c,)) for c in hand]
            if phase1.can_play_stock(state):
                actions.append(Action("stock"))
            return actions
        options = state["options"]
        plays = [(c,) for c in hand] + sequences(hand, options["min_sequence"],
                                                 options["trump_ends_trick"])
        top = phase2.top_play(state)
        if top is not None:
            plays = [p for p in plays if play_beats(p, top, state["trump"])]
        actions = [Action("play", cards=p) for p in plays]
        if top is not None:
            actions.append(Action("pickup"))
        return actions

    # --- the move -------------------------------------------------------------------------
    def apply(self, state: JSON, seat: int, action: Action) -> tuple[JSON, list[Event]]:
        """Apply ``seat``'s action; the input state is never modified.

        Raises ``RuleError`` and then nothing has changed. Codes: ``game_over``,
        ``not_a_player``, ``not_your_turn``, ``bad_action`` (a malformed action),
        ``one_card_only`` (R19: phase 1 plays one card), ``not_in_hand``,
        ``stock_too_small`` (``min``), ``no_stock_in_phase_2`` (R19),
        ``no_pickup_in_phase_1`` (R19), ``nothing_to_pick_up`` (R19: a leader cannot pick
        up), ``bad_sequence`` (``min``, ``from_two``), ``does_not_beat``.
        """
        if state["over"]:
            raise RuleError("game_over")
        if action.kind == "resign":
            return self._resign(state, seat, action)
        if not isinstance(seat, int) or not 0 <= seat < state["seats"] or \
                not deal.in_game(state, seat):
            raise RuleError("not_a_player")
        if seat != state["turn"]:
            raise RuleError("not_your_turn")
        if action.amount is not None or action.special is not None or \
                action.target is not None or action.guess is not None:
            raise RuleError("bad_action")
        cards = action.cards
        if action.kind == "play":
            if not cards or not all(is_card(c) for c in cards):
                raise RuleError("bad_action")
            if state["phase"] == 1 and len(cards) != 1:
                raise RuleError("one_card_only")
        elif cards is not None or action.kind not in ("stock", "pickup"):
            raise RuleError("bad_action")
        elif action.kind == "stock" and state["phase"] != 1:
            raise RuleError("no_stock_in_phase_2")
        elif action.kind == "pickup" and state["phase"] != 2:
            raise RuleError("no_pickup_in_phase_1")
        new = deal.copy_state(state)
        new["step"] += 1
        events: list[Event] = []
        rng: Any = LazyRandom(new["seed"], new["step"])
        if new["phase"] == 1:
            phase1.play(new, seat, cards[0] if cards else None, rng, events)
        elif action.kind == "play":
            assert cards is not None
            phase2.play(new, seat, tuple(cards), events)
        else:
            phase2.pickup(new, seat, events)
        return new, events

    def _resign(self, state: JSON, seat: int, action: Action) -> tuple[JSON, list[Event]]:
        """Remove ``seat`` at any time (a leave, or too many timeouts). Their hand and won
        pile leave the game (``discarded``; the cards of them not publicly known stay hidden:
        ``discarded_unseen``); cards they played stay in the trick; turns skip them. They are
        placed below everyone still playing (they take the koira's place). If one player is
        left in the game, it ends (R16). The turn then lies with a player in the game who
        has a legal action: in phase 1 see :func:`engine.koira.phase1.removed_mid_trick`
        (a trick all of whose players left); in phase 2 the next player in the game acts
        (R12, R13: on an empty trick the next one holding cards leads)."""
        if action != Action("resign"):
            raise RuleError("bad_action")
        if not isinstance(seat, int) or not 0 <= seat < state["seats"] or \
                not deal.in_game(state, seat):
            raise RuleError("not_a_player")
        new = deal.copy_state(state)
        new["step"] += 1
        events = [Event(PLAYER_REMOVED, {"seat": seat})]
        gone = new["hands"][seat] + new["piles"][seat]
        new["discarded"].extend(gone)
        known = new["known"][seat]
        new["discarded_unseen"].extend(c for c in gone if c not in known)
        new["hands"][seat], new["piles"][seat], new["known"][seat] = [], [], []
        if new["face_up"] is not None and new["face_up"][0] == seat:
            new["face_up"] = None
        new["removed"].append(seat)
        if phase2.check_over(new, events):
            return new, events
        rng: Any = LazyRandom(new["seed"], new["step"])
        if new["phase"] == 1:
            if seat == new["turn"] or seat in new["round_seats"]:
                phase1.removed_mid_trick(new, rng, events)
        elif seat == new["turn"]:
            after = deal.next_in_game(new, seat)
            if new["trick"]:
                new["turn"] = after
            else:
                phase2.lead(new, after, events)
        elif not new["trick"]:  # (R9: a trick begins with its lead; count who is in now)
            new["need"] = len(deal.players_in_game(new))
        return new, events

    # --- computer players -----------------------------------------------------------------
    def ai_action(self, view: JSON, rng: random.Random, level: str = "normal") -> Action:
        """A computer player's action from ``view`` (a seat's view) and a seeded ``rng``.
        ``level``: one of :attr:`ai_levels` (:mod:`engine.koira.ai_levels`), or ``"random"``
        for any legal action; raises ``ValueError`` for another."""
        from engine.koira.ai_levels import choose

        return choose(view, rng, level)

    def stand_in_action(self, state: JSON, seat: int, rng: random.Random,
                        level: str = "normal") -> Action:
        """For an absent player the computer plays as for its own seat (at ``level``): a
        Koira turn is one action and hands nothing back unfinished."""
        return self.ai_action(self.view(state, seat), rng, level)
