"""The easy computer player: legal, plausible Coyote moves with a beginner's mistakes.

It uses the normal player's arithmetic (:func:`engine.coyote.ai.estimate`: the exact
distribution of the total from the visible cards) but plays like someone new to the game:

- it never reads the others' bids for what they say about its own card (they can see it:
  ``shared/rules/coyote.md``, "Turn structure" 1), and now and then it has a hunch about its
  card instead, a card drawn at random from those it might hold, and plays as if sure of it;
- it calls Coyote on a whim of nerve: only when the last bid holds with a chance below a
  threshold drawn afresh each turn, so it calls too late as often as too early;
- it bids the minimum, and sometimes jumps a few points higher whatever the risk;
- it uses a special action only on a rare turn (then it plays that turn as the normal player).

The decision is a function of ``(view, rng)`` only and is always a legal action.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from engine.core import Action
from engine.coyote.ai import DEFAULT_AI, estimate
from engine.coyote.ai_dist import hold_chance
from engine.coyote.editions import MAX_BID, get_edition

View = dict[str, Any]


@dataclass(frozen=True)
class EasyAI:
    """A beginner; the fields are its habits (chances in 0..1).

    - ``hunch``: the chance, each turn, of playing as if its own card were one drawn at random;
    - ``nerve``: (low, high), the range its call threshold is drawn from each turn (it calls
      when the last bid holds with a smaller chance);
    - ``jump``: the chance of bidding 1 to ``jump_max`` above the minimum;
    - ``specials``: the chance, each turn, of playing the normal player's move (which may use a
      special action) instead.
    """

    hunch: float = 0.35
    nerve: tuple[float, float] = (0.15, 0.6)
    jump: float = 0.2
    jump_max: int = 3
    specials: float = 0.08

    def __call__(self, view: View, rng: random.Random) -> Action:
        """Same as :meth:`choose`."""
        return self.choose(view, rng)

    def choose(self, view: View, rng: random.Random) -> Action:
        """The action for ``view["seat"]``, whose turn it must be; ``rng`` is the only source
        of chance. Returns a legal action; raises ``ValueError`` off-turn or when the game is
        over."""
        me = view["seat"]
        if view["over"] or view["turn"] != me or me is None:
            raise ValueError("not this seat's turn")
        if view["specials"] is not None and rng.random() < self.specials:
            return DEFAULT_AI.choose(view, rng)
        min_bid = view["min_bid"]
        if min_bid > MAX_BID:
            return Action("call")  # the highest bid may only be called
        dist = estimate(view)
        weights = None
        if len(dist.own) > 1 and rng.random() < self.hunch:
            pick = rng.choices(range(len(dist.own)), [w for _, w, _, _ in dist.own])[0]
            weights = [1.0 if i == pick else 0.0 for i in range(len(dist.own))]
        if view["can_call"]:
            bids = view["bids"]
            answering = view["change"] is not None and view["change"]["target"] == me
            called = bids[-2][1] if answering else bids[-1][1]
            caller_loses = get_edition(view["edition"]).equal_total_loser == "caller"
            holds = hold_chance(dist, weights, called if caller_loses else called + 1)
            if holds < rng.uniform(*self.nerve):
                return Action("call")
        bid = min_bid
        if rng.random() < self.jump:
            bid += rng.randint(1, self.jump_max)
        return Action("bid", min(bid, MAX_BID))


EASY_AI = EasyAI()


def easy_action(view: View, rng: random.Random) -> Action:
    """The easy player's action for ``view["seat"]`` (see :class:`EasyAI`); legal, raises
    ``ValueError`` off-turn."""
    return EASY_AI.choose(view, rng)


__all__ = ["EASY_AI", "EasyAI", "easy_action"]
