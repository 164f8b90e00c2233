"""The easy Koira computer player: legal, plausible moves with a beginner's mistakes.

Decides from one seat's view only (``engine.koira.views.view``), deterministic for a given
``rng``; always legal. Source of the rules: ``shared/rules/koira.md``. A beginner:

- phase 1, wants every trick: plays its highest card whenever that can still win the round,
  whatever the trick holds (so it spends aces on a trick of 2s and fills its phase-2 hand),
  else dumps its lowest; turns up the stock only now and then;
- phase 2, never thinks ahead: beats with the lowest single card that beats (it rarely
  notices a sequence), picks up only when nothing single beats, and leads its lowest card;
- and now and then (:attr:`EasyAI.slip`) plays any legal move.

It never declines to go out (:func:`engine.koira.ai.going_out`: that much a beginner sees,
and it is never worse, R14), and breaks the circles phase 2 can go round in as the normal
player does (:func:`engine.koira.ai._unstick`).
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from engine.core import JSON, Action
from engine.koira.ai import _unstick, going_out, legal_plays
from engine.koira.cards import play_beats, rank, suit


@dataclass(frozen=True)
class EasyAI:
    """A beginner's habits (chances in 0..1): ``slip`` a random legal move; ``stock``
    turning up the stock in phase 1 when it may; ``sequence`` noticing a sequence it may
    play (it then plays the longest)."""

    slip: float = 0.15
    stock: float = 0.1
    sequence: float = 0.3

    def choose(self, view: JSON, rng: random.Random) -> Action:
        """The action for ``view``'s seat (it must be their turn); raises ``ValueError``
        off-turn."""
        legal = legal_plays(view)
        if not legal:
            raise ValueError("no legal action: not this seat's turn")
        if len(legal) == 1:
            return legal[0]
        out = going_out(view, legal)
        if out is not None:
            return out
        unstuck = _unstick(view, legal, rng)
        if unstuck is not None:
            return unstuck
        if rng.random() < self.slip:
            return rng.choice(legal)
        trump = view["trump"]
        hand = sorted(view["hand"] or [], key=lambda c: (suit(c) == trump, rank(c)))
        if view["phase"] == 1:
            if Action("stock") in legal and rng.random() < self.stock:
                return Action("stock")
            plays = view["trick"][view["round_from"]:]
            top = max((rank(p["cards"][0]) for p in plays), default=0)
            best = max(hand, key=rank)
            return Action("play", cards=(best if rank(best) > top else hand[0],))
        runs = [a for a in legal if a.kind == "play" and len(a.cards or ()) > 1]
        if runs and rng.random() < self.sequence:
            return max(runs, key=lambda a: len(a.cards or ()))
        if not view["trick"]:
            return Action("play", cards=(hand[0],))
        top = view["trick"][-1]["cards"]
        beating = [c for c in hand if play_beats((c,), top, trump)]
        return Action("play", cards=(beating[0],)) if beating else Action("pickup")


EASY_AI = EasyAI()


def easy_action(view: JSON, rng: random.Random) -> Action:
    """The easy player's action for ``view["seat"]`` (see :class:`EasyAI`)."""
    return EASY_AI.choose(view, rng)


__all__ = ["EASY_AI", "EasyAI", "easy_action"]
