"""Helpers of the Koira rules-lawyer tests (``test_koira_rulings_*``): events, plays, a stock."""

from __future__ import annotations

import json

import pytest

from engine.core import RuleError
from engine.koira.cards import DECK
from tests.engine.koira_helpers import plays


def _of(events: list[dict], kind: str) -> list[dict]:
    return [e for e in events if e["type"] == kind]


def _singles(state: dict, seat: int) -> set[str]:
    return {p[0] for p in plays(state, seat) if isinstance(p, tuple) and len(p) == 1}


def _seqs(state: dict, seat: int) -> set[tuple[str, ...]]:
    return {p for p in plays(state, seat) if isinstance(p, tuple) and len(p) > 1}


def _raises(code: str, fn, *args) -> None:
    with pytest.raises(RuleError) as err:
        fn(*args)
    assert err.value.code == code


def _with_stock(state: dict, stock: list[str]) -> dict:
    """``state`` (phase 1, nothing played yet) with the stock replaced by ``stock``; the
    cards taken out are set aside on seat 0's won pile so that all 52 stay accounted for."""
    state = json.loads(json.dumps(state))
    held = {c for h in state["hands"] for c in h} | set(stock)
    state["stock"] = list(stock)
    state["piles"][0] = [c for c in DECK if c not in held]
    return state
