"""The page's Koira table and controls, from engine states (no server): along whole random
games, what each seat's page (the JSON it is sent) names of the cards is exactly its own hand
and what is public, the public page names no hand card, and the controls are exactly the
engine's legal actions."""

from __future__ import annotations

import json
import random
from dataclasses import fields, replace

from engine import GAMES, Action
from engine.koira.cards import DECK
from league.store.snapshots import GameSnapshot, PlayerInfo
from telegram_app.games.koira import table as koira_table
from telegram_app.miniapp import table

NAMES = ["Ann", "Bob", "Cat", "Dan", "Eve"]
KOIRA = GAMES["koira"]


def player(user_id: int, name: str, seat: int) -> PlayerInfo:
    """A seated human; the fields the page does not read are ``None`` (by name: the league
    is renaming some of them)."""
    given = {"user_id": user_id, "name": name, "seat": seat, "is_ai": False}
    return PlayerInfo(**{f.name: given.get(f.name) for f in fields(PlayerInfo)})


def snapshot(seats: int = 4, seed: int = 7, options: dict | None = None) -> GameSnapshot:
    state, _events = KOIRA.new_game(seats, seed, options)
    players = tuple(player(i + 1, n, i) for i, n in enumerate(NAMES[:seats]))
    return GameSnapshot(id=9, chat_id=-1, thread_id=0, kind="koira", options=options or {},
                        status="running", version=1, state=state, creator_id=1,
                        lobby_message_id=None, table_message_id=None, players=players)


def named_cards(page: dict) -> set[str]:
    """Every card the page's JSON names, by code or by label (``10♥``)."""
    text = json.dumps(page, ensure_ascii=False)
    return {c for c in DECK if f'"{c}"' in text or koira_table.label(c) in text}


def public_cards(state: dict) -> set[str]:
    """What every player has seen: the trick, the cards that left the game, the trump
    card (R7). (The engine's views may also name the cards publicly known to lie with a
    player; the page does not send those.)"""
    seen = {c for play in state["trick"] for c in play[1]} | set(state["discarded"])
    if state["trump_card"]:
        seen.add(state["trump_card"])
    return seen


def actions_of(controls: list[dict]) -> list[Action]:
    found = []
    for control in controls:
        if control["type"] == "cards":
            found += [Action.from_json({**control["action"], control["field"]: play})
                      for play in control["plays"]]
        else:
            found += [Action.from_json(o["action"]) for o in control["options"]]
    return found


def random_game(seats: int, seed: int, options: dict | None = None):
    """Yield ``(snapshot, recent events)`` after every move of a random game."""
    game = snapshot(seats, seed, options)
    rng = random.Random(seed)
    events: list[list[dict]] = []
    while not KOIRA.is_over(game.state):
        seat = KOIRA.current_seat(game.state)
        action = rng.choice(KOIRA.legal_actions(game.state, seat))
        state, step = KOIRA.apply(game.state, seat, action)
        events = (events + [[e.to_json() for e in step]])[-6:]
        game = replace(game, state=state, version=game.version + 1)
        yield game, events


def test_each_page_names_only_its_own_hand_and_public_cards() -> None:
    checked = 0
    for seats, seed, options in [(4, 1, None), (3, 2, {"pickup_single": True}),
                                 (5, 3, {"min_sequence": 3, "tie_split": True})]:
        for game, _events in random_game(seats, seed, options):
            state = game.state
            public = public_cards(state)
            for user_id in range(1, seats + 1):
                page = table.page(game, user_id)
                own = set(state["hands"][user_id - 1])
                shown = named_cards(page)
                assert shown <= own | public, (user_id, sorted(shown - own - public))
                hand = page["koira"]["hand"]
                assert sorted(c["code"] for c in hand) == sorted(state["hands"][user_id - 1])
            outsider = table.page(game, 99)
            assert outsider["you"] is None and outsider["controls"] == []
            assert outsider["koira"]["hand"] is None
            assert named_cards(outsider) <= public
            checked += 1
    assert checked > 100


def test_the_controls_are_exactly_the_legal_actions() -> None:
    kinds: set[str] = set()
    sequences = 0
    for game, _events in random_game(4, 5):
        state = game.state
        if KOIRA.is_over(state):
            break
        seat = KOIRA.current_seat(state)
        found = table.controls(game, seat + 1)
        legal = KOIRA.legal_actions(state, seat)
        assert sorted(map(repr, actions_of(found))) == sorted(map(repr, legal))
        for action in actions_of(found):
            KOIRA.apply(state, seat, action)  # raises RuleError if not legal
        kinds |= {a.kind for a in legal}
        sequences += sum(1 for a in legal if a.kind == "play" and len(a.cards) > 1)
        for other in range(4):
            if other != seat:
                assert table.controls(game, other + 1) == []
        page = table.page(game, seat + 1)
        assert page["your_turn"] and page["prompt"].startswith("Your turn")
    assert kinds == {"play", "stock", "pickup"} and sequences > 0


def test_the_recent_lines_tell_every_step() -> None:
    last = None
    for game, events in random_game(4, 8):
        last = (game, events)
        lines = koira_table.recent(game, events)
        assert all(isinstance(line, str) and line for line in lines)
    game, events = last
    assert KOIRA.is_over(game.state)
    assert any("is the koira" in line for line in koira_table.recent(game, events))
    page = table.page(game, 1)
    assert page["over"] and "koira" in page["prompt"]
    assert sorted(s["place"] for s in page["seats"]) == [1, 2, 3, 4]


def test_the_koira_reads_that_they_are_the_koira() -> None:
    """The end's prompt named the koira in the third person to everyone, the koira too
    ("The game is over: Bob is the koira."); the koira now reads "you are the koira"."""
    *_, (game, _events) = random_game(4, 8)
    game = replace(game, status="finished")
    koira = KOIRA.view(game.state, None)["koira"]
    assert table.page(game, koira + 1)["prompt"] == "The game is over: you are the koira. 🐕"
    other = next(s for s in range(4) if s != koira)
    assert f"{NAMES[koira]}" in table.page(game, other + 1)["prompt"]
