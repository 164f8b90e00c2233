"""The hard computer player: today's AI (:mod:`engine.coyote.ai`) with an exact reading of
what the other players' bids say about its own card.

The others see its card (``shared/rules/coyote.md``, "Turn structure" 1), so each of their
bids is evidence. The normal player weighs it with a rough logistic; the hard one assumes the
others play the normal policy: for every card it might hold, it asks what a normal player in
the bidder's seat, seeing that card and the bids so far, would have done
(:mod:`engine.coyote.ai_model`, which computes it for all its possible cards at once;
:func:`replay_likelihood` is the same by replaying :meth:`CoyoteAI.choose`, much slower).
The likelihood of the bid actually made is that policy's probability of it (deterministic
but for a 1-in-4 bid one below its target), mixed with two other kinds of player (naive, and
anyone) so that people who play otherwise do not mislead it (:class:`HardAI`). Bayes' rule
then gives the distribution of its own card, and the normal decision rules run on
it: calls and bids come from a much sharper estimate of the total.

Measured with ``bench/ai_levels_bench.py`` (paired seeds, six-player classic; its target is in
``docs/benchmarks.md``).
A plain logistic made sharper (a lower floor or a higher ``trust``) did worse than the normal
player (13.3 % and 9.0 % in 400 games, normal 13.5 %), and so did a replay of a normal player
who ignores the bids (12.2 %): the gain comes from modelling the others as they really play.

Rebuilding what a bidder saw needs the round's cards to have stayed as they were, so the exact
reading is used in classic and poker-deck without special actions; elsewhere (feathers,
special actions) it reads the bids as the normal player does. Likelihoods are cached per
round and bid sequence, so each decision computes only the bids made since its last one. A
function of ``(view, rng)`` only, like the normal player.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any, cast

import numpy as np

from engine.core import Action
from engine.coyote.ai import DEFAULT_AI, CoyoteAI
from engine.coyote.ai_dist import TABLES, Distribution
from engine.coyote.ai_model import SUPPORTED, VARIETY, RoundModel, round_model

View = dict[str, Any]


class _Probe:
    """An ``rng`` for replaying the normal player: records whether it drew, and never takes
    the "a little variety" branch (so a drawn target ``T`` means ``T - 1`` one time in 4)."""

    __slots__ = ("used",)

    def __init__(self) -> None:
        self.used = False

    def random(self) -> float:
        self.used = True
        return 0.99


def _their_view(view: View, seat: int, card: str, k: int) -> View:
    """The view ``seat`` had before the ``k``-th bid of the round, if the viewer's own card is
    ``card`` (no special actions: the cards, lives and piles were the same then)."""
    me = view["seat"]
    bids = view["bids"][:k]
    cards = list(view["cards"])
    cards[me] = card
    cards[seat] = None
    other = dict(view)
    other.update(seat=seat, turn=seat, cards=cards, bids=bids,
                 min_bid=bids[-1][1] + 1 if bids else 1,
                 can_call=bool(bids) and bids[-1][0] != seat)
    return other


def replay_likelihood(view: View, k: int, card: str) -> float:
    """The chance the normal player would have made the ``k``-th bid of the round had the
    viewer's own card been ``card``, by replaying :meth:`CoyoteAI.choose` on the view the
    bidder had (the reference :mod:`engine.coyote.ai_model` is tested against)."""
    amount = view["bids"][k][1]
    probe = _Probe()
    action = DEFAULT_AI.choose(_their_view(view, view["bids"][k][0], card, k),
                               probe)  # type: ignore[arg-type]
    if action.kind != "bid" or action.amount is None:
        return 0.0
    if not probe.used:
        return 1.0 if action.amount == amount else 0.0
    if action.amount == amount:
        return 1.0 - VARIETY
    return VARIETY if action.amount - 1 == amount else 0.0


_MODELS: dict[tuple, RoundModel | None] = {}
_MODELS_MAX = 256  # per (round, bidder); a model holds up to a few MB
_LIKELY: dict[tuple, tuple[np.ndarray, np.ndarray]] = {}
_CACHE_MAX = 8192


def _evict(cache: dict, room: int) -> None:
    """Drop the oldest entries (a dict keeps insertion order) until at most ``room`` - 1 are
    left: the rounds being played keep theirs, where clearing all would rebuild them."""
    if len(cache) >= room:
        for key in list(cache)[:len(cache) - room + 1 + len(cache) // 4]:
            del cache[key]


def _static(view: View) -> tuple:
    """What identifies a round's cards as this viewer sees them (no special actions)."""
    return (view["edition"], view["seat"], tuple(view["cards"]), tuple(view["lives"]),
            tuple(view["discard"]), view["draw_count"], view["round"])


@dataclass(frozen=True)
class HardAI(CoyoteAI):
    """The normal player's rules on a posterior of its own card that models the bidders.

    Each bidder is one of three kinds, with prior chances ``kinds``: a normal player (their
    bids weighed by :mod:`engine.coyote.ai_model`), a naive one (who bids the minimum and
    calls when the cards they see fall short of the bid, :func:`engine.coyote.ai.naive_action`)
    or anyone (every bid as likely, ``anything`` each, whatever its card). A bid one kind would
    not have made weighs ``floor``; a minimum bid where the normal player would have jumped
    weighs ``nojump`` for the normal kind (people rarely jump as it does). ``amounts=False``
    reads only whether the normal player would have called (an experiment: it did worse).
    The mixture keeps it from reading too much into the bids of players unlike the model:
    with the normal kind alone it won 33 % of 400 games against five normal players but 3 %
    against five naive ones (it took their minimum bids for a low card); in 300 games each,
    kinds (0.8, 0.1, 0.1) won 27.7 % / 13.3 % (normal / naive opponents), (0.5, 0.4, 0.1)
    30.7 % / 53.3 %, (0.3, 0.6, 0.1) 28.0 % / 72.7 %, the defaults 31.7 % / 67.3 % (the
    normal player wins about 77 % against naive ones).
    Out of the model's scope (:mod:`engine.coyote.ai_model`: feathers, special actions, an
    empty draw pile) it reads the bids as the normal player does.
    """

    floor: float = 0.03
    amounts: bool = True
    kinds: tuple[float, float, float] = (0.4, 0.5, 0.1)
    anything: float = 0.3
    nojump: float = 0.3

    def _weights(self, view: View, dist: Distribution) -> list[float] | None:
        me = view["seat"]
        if len(dist.own) == 1 or view["cards"][me] is not None \
                or view["edition"] not in SUPPORTED or view["specials"] is not None \
                or view["draw_count"] == 0:
            return super()._weights(view, dist)
        bids = view["bids"]
        ks = [k for k, (seat, _) in enumerate(bids) if seat != me]
        if not ks:
            return None
        static = _static(view)
        keys = [(static, tuple(tuple(b) for b in bids[:k + 1])) for k in ks]
        got = [_LIKELY.get(key) for key in keys]
        todo = [i for i, row in enumerate(got) if row is None]
        if todo:
            # one model per round and bidder, built for the bidders it has not seen yet
            missing = sorted({bids[ks[i]][0] for i in todo} - {
                s for s in range(view["seats"]) if (static, s) in _MODELS})
            if missing:
                _evict(_MODELS, _MODELS_MAX - len(missing))
                model = round_model(view, cast(list[str], [c for c, _, _, _ in dist.own]),
                                    missing)
                for s in missing:
                    _MODELS[(static, s)] = model
            groups: dict[int, tuple[RoundModel | None, list[int]]] = {}
            for i in todo:
                model = _MODELS[(static, bids[ks[i]][0])]
                groups.setdefault(id(model), (model, []))[1].append(i)
            for model, part in groups.values():
                if model is None:
                    return super()._weights(view, dist)
                likely, calls = model.likelihoods(bids, [ks[i] for i in part], me,
                                                  view["cards"])
                for i, row, call in zip(part, likely, calls, strict=True):
                    got[i] = (row, call)
            _evict(_LIKELY, _CACHE_MAX - len(todo))
            for i in todo:
                _LIKELY[keys[i]] = got[i]  # type: ignore[assignment]
        # per bidder, a mixture of three kinds of player: normal, naive, anything
        table = TABLES[view["edition"]]
        cands = [c for c, _, _, _ in dist.own]
        mine = np.array([float(table[c][0]) if c is not None else 0.0 for c in cands])
        cards = view["cards"]
        seen = sum(table[c][0] for c in cards if c is not None)
        floor = self.floor
        normal: dict[int, np.ndarray] = {}
        naive: dict[int, np.ndarray] = {}
        count: dict[int, int] = {}
        for k, (row, call) in zip(ks, got, strict=True):  # type: ignore[misc]
            seat, amount = bids[k]
            if not self.amounts:
                row = np.where(call, 0.0, 1.0)
            if self.nojump > 0 and amount == (bids[k - 1][1] + 1 if k else 1):
                row = np.where(call | (row > 0), row, self.nojump)
            normal[seat] = normal.get(seat, 1.0) * (floor + (1.0 - floor) * row)
            low = bids[k - 1][1] + 1 if k else 1
            if amount != low:
                fits = np.zeros(len(cands))
            elif k and bids[k - 1][0] != seat:  # would the naive player have called?
                theirs = seen - table[cards[seat]][0] + mine
                fits = (theirs >= bids[k - 1][1]).astype(np.float64)
            else:
                fits = np.ones(len(cands))
            naive[seat] = naive.get(seat, 1.0) * (floor + (1.0 - floor) * fits)
            count[seat] = count.get(seat, 0) + 1
        weights = np.array([w for _, w, _, _ in dist.own])
        kinds = self.kinds
        for seat, n in count.items():
            weights = weights * (kinds[0] * normal[seat] + kinds[1] * naive[seat]
                                 + kinds[2] * self.anything ** n)
        norm = float(weights.sum())
        return [float(w) / norm for w in weights] if norm > 0 else None


HARD_AI = HardAI()


def hard_action(view: View, rng: random.Random) -> Action:
    """The hard player's action for ``view["seat"]`` (see :class:`HardAI`); legal, raises
    ``ValueError`` off-turn."""
    return HARD_AI.choose(view, rng)


__all__ = ["HARD_AI", "HardAI", "hard_action"]
