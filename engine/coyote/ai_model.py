"""The normal computer player's bids, computed for every card the viewer might hold at once.

The hard player (:mod:`engine.coyote.ai_hard`) reads the others' bids as evidence about its own
card: "had my card been ``c``, would a normal player in that seat have bid this?". Replaying
:meth:`engine.coyote.ai.CoyoteAI.choose` once per possible card and bid is exact but costs a
fresh distribution of the total each time (about 0.1–0.3 ms, far too slow at ten players).
This module computes the same decision with NumPy arrays over (viewer's card ``c``, bidder's
own card ``x``, card ``y`` a drawing card turns up), once per round and bidder, then per bid:

- the bidder's distribution of the total, as :func:`engine.coyote.ai_dist.distribution` gives
  it (every unseen card equally likely to be theirs; a drawing card turns up one more unseen
  card, ``shared/rules/coyote.md``, "Scoring" 1);
- their belief about their own card from the bids before theirs (the normal player's logistic
  likelihood, :meth:`CoyoteAI._weights` with its defaults);
- their call (:attr:`CoyoteAI.call`), and their target bid (the highest that holds with chance
  :attr:`CoyoteAI.jump`, one lower a quarter of the time).

Scope: classic and poker-deck (whose showdown needs only the highest positive card), no
special actions, a non-empty draw pile; :func:`bidder_model` returns ``None`` otherwise.
``tests/engine/test_ai_levels.py`` checks it against the replays. A function of the view only.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from engine.coyote.ai import DEFAULT_AI
from engine.coyote.ai_dist import MAX0, TABLES, X2, _summarize
from engine.coyote.editions import get_edition

View = dict[str, Any]
VARIETY = 0.25
"""The normal player's chance of bidding one below its target (:meth:`CoyoteAI.choose`)."""
SUPPORTED = ("classic", "poker-deck")

_KINDS: dict[str, tuple[list[str], dict[str, int], np.ndarray, np.ndarray, np.ndarray,
                        np.ndarray]] = {}


def _kinds(edition: str) -> Any:
    """Per edition: the card kinds, their index, and per kind its value, its positive part,
    its flag bits and whether it draws."""
    got = _KINDS.get(edition)
    if got is None:
        table = TABLES[edition]
        kinds = sorted(table)
        value = np.array([table[k][0] for k in kinds], dtype=np.int64)
        flags = np.array([table[k][1] for k in kinds], dtype=np.int64)
        draws = np.array([int(table[k][2]) for k in kinds], dtype=np.int64)
        got = _KINDS[edition] = (kinds, {k: i for i, k in enumerate(kinds)}, value,
                                 np.maximum(value, 0), flags, draws)
    return got


def _final(pos: Any, neg: Any, top: Any, flags: Any) -> Any:
    """:func:`engine.coyote.ai_dist.final` for classic and poker-deck, on arrays."""
    total = pos + neg - np.where((flags & MAX0) != 0, top, 0)
    return np.where((flags & X2) != 0, 2 * total, total)


class RoundModel:
    """Every other player's view of the round, for every card ``c`` the viewer might hold.

    Axes: ``j`` the other players holding a card (``seats``), ``c`` the viewer's possible
    cards (``cands``), ``x`` the card kinds a player may believe their own, ``y`` the kind a
    drawing card turns up. ``p`` (J, C, X): player j's prior on their own card; ``sparse``
    (per j: cell index c·X + x, slot c·``width`` + q, mass): P(total = ``base`` + ``width`` -
    1 - q) given (c, x), a drawing card turning up y with the chance j would give it
    (totals of ``base`` or less in the first slot); ``means`` (J, C, X); ``low``/``high``
    (J, C): the smallest / largest total; ``unknown`` (J, C): the expected value of one's
    own card; ``scale`` (J, C): the normal player's logistic scale.
    """

    def __init__(self, edition: str, cands: list[str], counts: np.ndarray,
                 cards: list[str | None], seats: list[int]) -> None:
        kinds, index, value, posv, flag, draws = _kinds(edition)
        table = TABLES[edition]
        self.edition = edition
        self.caller_loses = get_edition(edition).equal_total_loser == "caller"
        self.cands = cands
        self.seats = seats
        self.row = {s: i for i, s in enumerate(seats)}
        nk = len(kinds)
        ci = np.array([index[c] for c in cands])
        xj = np.array([index[cards[s]] for s in seats])
        eye = np.eye(nk)
        # player j's unseen multiset if the viewer holds c: the viewer's unseen + x_j - c
        n = counts[None, None, :] + eye[xj][:, None, :] - eye[ci][None, :, :]
        valid = n > 0
        p = n / n.sum(axis=2, keepdims=True)
        summaries = []
        for s in seats:
            others = [c for t, c in enumerate(cards) if c is not None and t != s]
            summaries.append(_summarize(table, others))
        pos_s = np.array([sm[0] for sm, _ in summaries])[:, None, None]
        neg_s = np.array([sm[1] for sm, _ in summaries])[:, None, None]
        top_s = np.array([sm[2] for sm, _ in summaries])[:, None, None]
        flags_s = np.array([sm[4] for sm, _ in summaries])[:, None, None]
        pend_s = np.array([pd for _, pd in summaries])[:, None, None]
        neg_v = value - posv
        pos = pos_s + posv[ci][None, :, None] + posv[None, None, :]
        neg = neg_s + neg_v[ci][None, :, None] + neg_v[None, None, :]
        top = np.maximum(top_s, np.maximum(posv[ci][None, :, None], posv[None, None, :]))
        flags = flags_s | flag[ci][None, :, None] | flag[None, None, :]
        pend = (pend_s + draws[ci][None, :, None] + draws[None, None, :]) > 0
        fixed = _final(pos, neg, top, flags)
        # a drawing card turns up y from j's unseen cards less their own x (only the cells
        # with a drawing card in play get the y axis)
        kj, kc, kx = np.nonzero(pend & valid)
        bag = np.maximum(n[kj, kc] - eye[kx], 0.0)  # (K, Y)
        bag_size = bag.sum(axis=1, keepdims=True)
        empty = bag_size[:, 0] == 0  # nothing left to turn up: the total as it is
        chance = bag / np.where(empty[:, None], 1.0, bag_size)
        chance[empty, 0] = 1.0
        drawn = _final(pos[kj, kc, kx][:, None] + posv, neg[kj, kc, kx][:, None] + neg_v,
                       np.maximum(top[kj, kc, kx][:, None], posv),
                       flags[kj, kc, kx][:, None] | flag)
        drawn = np.where(empty[:, None], fixed[kj, kc, kx][:, None], drawn)
        plain = valid & ~pend
        big = 1 << 40
        low = np.where(plain, fixed, big).min(axis=2)
        high = np.where(plain, fixed, -big).max(axis=2)
        means = fixed.astype(np.float64)
        if len(kj):
            live = chance > 0
            cell_low = np.full(fixed.shape, big)
            cell_high = np.full(fixed.shape, -big)
            cell_low[kj, kc, kx] = np.where(live, drawn, big).min(axis=1)
            cell_high[kj, kc, kx] = np.where(live, drawn, -big).max(axis=1)
            low = np.minimum(low, cell_low.min(axis=2))
            high = np.maximum(high, cell_high.max(axis=2))
            means[kj, kc, kx] = (drawn * chance).sum(axis=1)
        self.low, self.high, self.means = low, high, means
        # totals of 0 or less share the first cell: every bid asked about is at least 1
        self.base = np.maximum(low, 0)
        self.width = width = max(0, int((high - self.base).max())) + 2
        # P(total = base[j, c] + width - 1 - q | c, x) at flat index ((j, c, x), q): the
        # totals from the top down
        cell = (np.arange(fixed.size).reshape(fixed.shape)) * width
        base = self.base[..., None]
        where = [(cell + (width - 1 - np.clip(fixed - base, 0, width - 1)))[plain]]
        mass = [np.ones(int(plain.sum()))]
        if len(kj):
            where.append((cell[kj, kc, kx][:, None] + (width - 1 - np.clip(
                drawn - self.base[kj, kc][:, None], 0, width - 1))).ravel())
            mass.append(chance.ravel())
        # kept sparse, per player j: the cell (c, x) and the (c, q) slot of each total's mass
        # (a dense (J, C, X, Q) array is mostly zeros and costs more to build than to use)
        at = np.concatenate(where)
        weight = np.concatenate(mass)
        order = np.argsort(at, kind="stable")
        at, weight = at[order], weight[order]
        nj, nc, nx = fixed.shape
        per_j = nc * nx * width
        cuts = np.searchsorted(at, np.arange(nj + 1) * per_j)
        self.sparse = []
        for j in range(nj):
            local = at[cuts[j]:cuts[j + 1]] - j * per_j
            cx, q = np.divmod(local, width)
            self.sparse.append((cx, (cx // nx) * width + q, weight[cuts[j]:cuts[j + 1]]))
        self.p = np.where(valid, p, 0.0)
        self.unknown = (self.p * value).sum(axis=2)
        self.scale = DEFAULT_AI.trust / np.maximum(2.0, (self.high - self.low) / 6)
        self.value_of = {k: float(table[k][0]) for k in kinds}
        self.cand_values = value[ci].astype(np.float64)

    def likelihoods(self, bids: list[list[int]], ks: list[int], me: int,
                    cards: list[str | None]) -> tuple[np.ndarray, np.ndarray]:
        """Per ``k`` of ``ks``, had the viewer ``me`` held each ``c``: (E, C) the chance the
        normal player in seat ``bids[k][0]`` bids ``bids[k][1]`` after the round's bids
        ``bids[:k]``, and (E, C) whether they would have called instead (always false for the
        opening bid); ``cards``: the viewer's view of the hands."""
        ne, nc = len(ks), len(self.cands)
        rows = np.array([self.row[bids[k][0]] for k in ks])
        lasts = []
        for k in ks:
            seat = bids[k][0]
            last: dict[int, int] = {}
            for s, b in bids[:k]:
                if s != seat:
                    last[s] = b
            lasts.append(last)
        width = max(1, max(len(last) for last in lasts))
        theirs = np.zeros((ne, width, nc))
        bid_of = np.zeros((ne, width))
        mask = np.zeros((ne, width), dtype=bool)
        for e, last in enumerate(lasts):
            for i, (s, b) in enumerate(last.items()):
                theirs[e, i] = self.cand_values if s == me else self.value_of.get(cards[s], 0.0)
                bid_of[e, i] = b
                mask[e, i] = True
        p = self.p[rows]  # (E, C, X)
        shift = self.unknown[rows][:, None, :] - theirs - bid_of[:, :, None]  # (E, S, C)
        z = (self.means[rows][:, None] + shift[..., None]) * self.scale[rows][:, None, :, None]
        f = np.where(z > -30, 0.1 + 0.9 / (1.0 + np.exp(-np.clip(z, -30.0, 30.0))), 0.1)
        f = np.where(mask[:, :, None, None], f, 1.0)
        weights = p * f.prod(axis=1)
        weights = weights / weights.sum(axis=2, keepdims=True)
        low = np.array([bids[k - 1][1] + 1 if k else 1 for k in ks])
        may_call = np.array([k > 0 and bids[k - 1][0] != bids[k][0] for k in ks])
        amount = np.array([bids[k][1] for k in ks])
        lows, highs, bases = self.low[rows], self.high[rows], self.base[rows]  # (E, C)
        flat = weights.reshape(ne, -1)
        mixed = np.empty((ne, nc * self.width))
        for e, j in enumerate(rows):
            cx, cq, mass = self.sparse[j]
            mixed[e] = np.bincount(cq, weights=flat[e][cx] * mass, minlength=nc * self.width)
        # the cumulative sum over totals from the top down: P(total >= ...)
        rev = np.cumsum(mixed.reshape(ne, nc, self.width), axis=2)
        full = rev[..., ::-1]  # full[e, c, r] = P(total >= bases[e, c] + r), r >= 1
        top = full.shape[2] - 1

        def hold(points: np.ndarray) -> np.ndarray:  # (E, C) points -> (E, C) chances
            got = np.take_along_axis(full, np.clip(points - bases, 0, top)[..., None],
                                     axis=2)[..., 0]
            got = np.where(points <= lows, 1.0, got)
            return np.where(points > highs, 0.0, got)

        r = bases[..., None] + np.arange(full.shape[2])  # the bid each r stands for
        sure = np.where(r <= lows[..., None], 1.0, np.where(r > highs[..., None], 0.0, full))
        sure = (sure >= DEFAULT_AI.jump) & (r >= low[:, None, None] + 1)
        below = np.maximum(0, bases - (low[:, None] + 1))  # bids under every total hold
        steps = below + sure.sum(axis=2)  # the chance falls as the bid rises: a leading run
        target = low[:, None] + steps
        bid_loss = 1.0 - hold(target)
        call_at = low - 1 if self.caller_loses else low
        lose_call = hold(np.broadcast_to(call_at[:, None], target.shape))
        calls = may_call[:, None] & ((lose_call < DEFAULT_AI.call) | (lose_call < bid_loss))
        varied = target > low[:, None]
        out = np.where(target == amount[:, None], np.where(varied, 1.0 - VARIETY, 1.0), 0.0)
        out = out + np.where(varied & (target - 1 == amount[:, None]), VARIETY, 0.0)
        return np.where(calls, 0.0, out), calls


def round_model(view: View, cands: list[str],
                seats: list[int] | None = None) -> RoundModel | None:
    """The model of ``seats`` (default: every other player holding a card), for the viewer
    of ``view`` whose possible cards are ``cands``, or ``None`` out of scope (see the module
    docstring)."""
    edition = view["edition"]
    me = view["seat"]
    cards = view["cards"]
    if edition not in SUPPORTED or view["specials"] is not None or view["draw_count"] == 0 \
            or cards[me] is not None:
        return None
    kinds, index, *_ = _kinds(edition)
    counts = np.zeros(len(kinds))
    for card in get_edition(edition).deck:
        counts[index[card]] += 1
    for card in [c for c in cards if c is not None] + list(view["discard"]):
        counts[index[card]] -= 1
    if seats is None:
        seats = [s for s, c in enumerate(cards) if c is not None and s != me]
    if any(cards[s] is None or s == me for s in seats):
        return None
    return RoundModel(edition, cands, counts, cards, seats)


__all__ = ["RoundModel", "SUPPORTED", "VARIETY", "round_model"]
