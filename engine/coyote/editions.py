"""Coyote editions as data: deck composition, player limits, lives and showdown rulings.

Source: ``shared/rules/coyote.md`` ("Edition classic", "Edition feathers", "Edition
poker-deck"); the compositions come from the seed texts 001/003 (36 cards), 004 (feathers) and
000 (playing cards). Anything that differs between editions is a field here, so the game code
reads the edition instead of testing its name.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.core import RuleError


def _deck(*groups: tuple[str, int]) -> tuple[str, ...]:
    return tuple(card for card, count in groups for _ in range(count))


@dataclass(frozen=True)
class Edition:
    """One ruleset.

    - ``deck``: every card, in the notation of ``shared/rules/coyote.md``.
    - ``lives`` / ``lives_range``: the default and the allowed lives (poker-deck: the number of
      penalty cards that ends the game).
    - ``more_lives_max_players``: more lives than the default are allowed only with at most
      this many players (feathers: "3 eliminate *(option: 4 or 5 with 3–4 players)*");
      ``None``: any table may use the whole ``lives_range``.
    - ``equal_total_loser``: who loses when the total equals the bid (``"caller"``, or
      ``None`` for nobody).
    - ``next_starter``: ``"loser"`` (the loser, or the winner if the loser is out),
      ``"winner"`` (the showdown's winner) or ``"penalised"`` (the loser, the caller on a draw).
    - ``reshuffle_every_round``: every card goes back into the draw pile before each deal.
    - ``first_out_ends``: the first player to lose their last life ends the game as its only
      loser (poker-deck).
    - ``specials``: the optional special actions, ``"masks"`` (each player's mask, once per
      round), ``"coins"`` (a shared pool, each coin once per round) or ``None``.
    - ``full_reshuffle_cards``: cards whose presence in a round sends every card back into the
      draw pile afterwards (``night``, the blue ``0b``).
    - ``after_elimination``: who may start after the loser was eliminated, the default first
      (classic: ``"winner"`` of the showdown, or *(option)* ``"next"`` surviving player after
      the loser); empty where the edition has no such choice.
    """

    name: str
    deck: tuple[str, ...]
    min_players: int
    max_players: int
    lives: int
    lives_range: tuple[int, int]
    equal_total_loser: str | None
    next_starter: str
    reshuffle_every_round: bool = False
    first_out_ends: bool = False
    specials: str | None = None
    full_reshuffle_cards: frozenset[str] = frozenset()
    after_elimination: tuple[str, ...] = ()
    more_lives_max_players: int | None = None


CLASSIC = Edition(
    name="classic",
    deck=_deck(
        ("20", 1), ("15", 2), ("10", 3),
        ("5", 4), ("4", 4), ("3", 4), ("2", 4), ("1", 4),
        ("0", 3), ("-5", 2), ("-10", 1),
        ("x2", 1), ("max0", 1), ("?", 1), ("night", 1),
    ),
    min_players=3,
    max_players=10,
    lives=3,
    lives_range=(2, 5),
    equal_total_loser="caller",
    next_starter="loser",
    specials="masks",
    full_reshuffle_cards=frozenset({"night"}),
    after_elimination=("winner", "next"),
)

FEATHERS = Edition(
    name="feathers",
    deck=_deck(
        *((str(v), 2) for v in range(1, 11)), ("15", 1), ("20", 1),
        ("-5", 2), ("-10", 1),
        ("?", 1), ("max0", 1), ("max-", 1), ("x2", 1), ("0b", 1),
    ),
    min_players=3,
    max_players=10,
    lives=3,
    lives_range=(3, 5),
    equal_total_loser="caller",
    next_starter="winner",
    specials="coins",
    full_reshuffle_cards=frozenset({"0b"}),
    more_lives_max_players=4,
)

POKER_DECK = Edition(
    name="poker-deck",
    deck=_deck(("A", 4), ("2", 4), ("3", 4), ("4", 4), ("5", 4), ("J", 1), ("Q", 1), ("K", 1)),
    min_players=3,
    max_players=8,
    lives=4,
    lives_range=(4, 4),
    equal_total_loser=None,
    next_starter="penalised",
    reshuffle_every_round=True,
    first_out_ends=True,
)

MASKS = ("pass", "double", "reverse", "draw1", "change", "shot")
"""Classic mask effects (``shared/rules/coyote.md``, "Mask actions")."""
COINS = ("extra", "reverse", "skip", "swap", "guess")
"""Feathers variant coins, the default pool (``shared/rules/coyote.md``, "Variant coins")."""
BID_SPECIALS = frozenset({"double", "draw1", "shot"})
"""Masks used together with a bid (after bidding, per the rules)."""
MAX_BID = 99_999_999_999
"""The highest bid (a house limit: the rules set none; a chat button's data carries at most 12
digits). It closes the bidding: the players after it may only call Coyote on it (no special
action: each would pass the turn on, demand a higher bid, or be followed by one), and its
bidder, who may not call their own bid, is never given the turn again
(:func:`engine.coyote.flow.next_active`)."""

EDITIONS: dict[str, Edition] = {e.name: e for e in (CLASSIC, FEATHERS, POKER_DECK)}


def get_edition(name: str) -> Edition:
    """The edition called ``name``; raises ``RuleError("unknown_edition")``."""
    try:
        return EDITIONS[name]
    except KeyError:
        raise RuleError("unknown_edition", edition=name) from None
