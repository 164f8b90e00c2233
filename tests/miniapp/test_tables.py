"""The page's table and controls for every Coyote edition, from engine states (no server):
a seat sees every card but its own, the public none; every control's action is one the
engine accepts."""

from __future__ import annotations

from dataclasses import replace

import pytest

from engine import GAMES, Action
from league.store.snapshots import GameSnapshot, PlayerInfo
from telegram_app.games.coyote.table import controls
from telegram_app.miniapp import table

NAMES = ["Ann", "Bob", "Cat", "Dan"]


def snapshot(edition: str, specials: bool = False, seed: int = 7) -> GameSnapshot:
    options = {"edition": edition, "specials": specials}
    state, _events = GAMES["coyote"].new_game(4, seed, options)
    players = tuple(PlayerInfo(i + 1, n, i, False, state["lives"][i], None, None, None)
                    for i, n in enumerate(NAMES))
    return GameSnapshot(id=5, chat_id=-1, thread_id=0, kind="coyote", options=options,
                        status="running", version=3, state=state, creator_id=1,
                        lobby_message_id=None, table_message_id=None, players=players)


def actions_of(control: dict, pick: int | None = None) -> list[Action]:
    if control["type"] == "buttons":
        return [Action.from_json(o["action"]) for o in control["options"]]
    amount = control["min"] if pick is None else pick
    base = {**control["action"], control["field"]: amount}
    return [Action.from_json(base)] + [Action.from_json({**base, **m["patch"]})
                                       for m in control["modifiers"]]


@pytest.mark.parametrize("edition,specials", [("classic", False), ("classic", True),
                                              ("feathers", False), ("feathers", True),
                                              ("poker-deck", False)])
def test_each_seat_sees_all_cards_but_its_own(edition: str, specials: bool) -> None:
    game = snapshot(edition, specials)
    for user_id in range(1, 5):
        page = table.page(game, user_id)
        for seat in page["seats"]:
            assert seat["cards"][0].get("hidden", False) == seat["you"]
            assert seat["you"] == (seat["seat"] == user_id - 1)
    public = table.page(game, 99)
    assert public["you"] is None and public["controls"] == []
    assert all(s["cards"][0].get("hidden") for s in public["seats"])


@pytest.mark.parametrize("edition,specials", [("classic", True), ("feathers", True),
                                              ("poker-deck", False)])
def test_every_control_is_a_legal_move(edition: str, specials: bool) -> None:
    engine = GAMES["coyote"]
    for seed in range(6):
        game = snapshot(edition, specials, seed)
        state = game.state or {}
        # one bid in, so that a call (and Change) are possible
        state, _ = engine.apply(state, state["turn"], Action("bid", 2))
        game = replace(game, state=state)
        seat = state["turn"]
        found = controls(game, seat)
        assert found and found[0]["id"] == "bid" and found[0]["min"] == 3
        ids = {c["id"] for c in found}
        assert "call" in ids
        if edition == "classic":
            assert "specials" in ids
            assert {m["patch"]["special"] for m in found[0]["modifiers"]} == \
                {"double", "draw1", "shot"}
        if edition == "feathers":
            assert "guess" in ids and "specials" in ids
        for control in found:
            for action in actions_of(control):
                engine.apply(state, seat, action)  # raises RuleError if not legal
        for other in range(4):
            if other != seat:
                assert controls(game, other) == []


def test_a_poker_deck_seat_counts_penalty_cards_as_the_chat_does() -> None:
    """poker-deck's rules count penalty cards (the 4th loses); the chat shows ``🂠 1/4``. The
    page drew ♥♥♥♡ for it, as for the editions that count lives; it now shows the chat's
    count, and the other editions keep their hearts."""
    game = snapshot("poker-deck")
    lives = list(game.state["lives"])
    lives[1] -= 1
    game = replace(game, state={**game.state, "lives": lives})
    seats = table.page(game, 1)["seats"]
    assert [s["tally_label"] for s in seats] == ["🂠 0/4", "🂠 1/4", "🂠 0/4", "🂠 0/4"]
    assert all(s["tally_label"] is None for s in table.page(snapshot("classic"), 1)["seats"])
