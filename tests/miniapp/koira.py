"""Koira games for the Mini App tests, through the league service of the running bot: Ann,
Bob and Cat (ids 1–3) and one computer player, and a driver that plays the humans' turns
through :meth:`MatchService.act` (what a button press calls) until a wanted position."""

from __future__ import annotations

import json
from collections.abc import Callable

from engine import GAMES, Action
from engine.koira.cards import DECK
from league.service import MatchService
from league.store.snapshots import GameSnapshot, UserRef
from telegram_app.games.koira.table import label
from telegram_app.services import KEY

KOIRA = GAMES["koira"]
NAMES = {1: "Ann", 2: "Bob", 3: "Cat"}


def service_of(runner) -> MatchService:
    return runner.app.bot_data[KEY].service


async def koira_game(runner, group: int, options: dict | None = None,
                     seed: int | None = None) -> GameSnapshot:
    """Open a Koira lobby in ``group``, seat Ann, Bob, Cat and a computer player, start
    (through the service, as ``/newgame koira`` and the lobby's buttons would; ``options``
    may carry a ``deck``; ``seed`` fixes the deal, else it is random)."""
    service = service_of(runner)
    if seed is not None:
        service.new_seed = lambda: seed
    lobby = await service.open_lobby(group, "Mini league", 0, UserRef(1, "Ann"),
                                     kind="koira", options=options)
    for user_id in (2, 3):
        await service.join(lobby.id, UserRef(user_id, NAMES[user_id]))
    await service.add_ai(lobby.id, 1)
    return (await service.start(lobby.id, 1)).game


def human_on_turn(game: GameSnapshot) -> int | None:
    """The user id of the human whose turn it is, or ``None``."""
    seat = KOIRA.current_seat(game.state or {})
    if seat is None:
        return None
    return game.at_seat(seat).user_id


def simple_action(state: dict, seat: int) -> Action:
    """A plain policy for the driven humans: the lowest single card; in phase 2 pick up
    rather than beat with a sequence (so that sequences stay in hand)."""
    legal = KOIRA.legal_actions(state, seat)
    singles = [a for a in legal if a.kind == "play" and len(a.cards or ()) == 1]
    if singles:
        return singles[0]
    return next((a for a in legal if a.kind == "pickup"), legal[0])


async def drive(runner, game_id: int, wanted: Callable[[GameSnapshot], bool],
                limit: int = 800) -> GameSnapshot:
    """Play the humans' turns with :func:`simple_action` until ``wanted(game)``; raises
    ``AssertionError`` if the game ends first."""
    service = service_of(runner)
    for _ in range(limit):
        game = await service.get(game_id)
        if wanted(game):
            return game
        user = human_on_turn(game)
        assert user is not None, "the game ended before the wanted position"
        seat = KOIRA.current_seat(game.state)
        await service.act(game_id, user, game.version, simple_action(game.state, seat))
    raise AssertionError("no wanted position")


def other_hands(game: GameSnapshot, user_id: int | None) -> set[str]:
    """The cards in every hand but ``user_id``'s."""
    seat = None if user_id is None or game.player(user_id) is None \
        else game.player(user_id).seat
    return {c for s, hand in enumerate(game.state["hands"]) if s != seat for c in hand}


def unseen(game: GameSnapshot, user_id: int | None) -> set[str]:
    """The cards ``user_id`` cannot know: the other hands and the stock, but for the cards
    publicly known to be in a hand (picked up) and those of an unbreakable tie's shuffled
    share (seen on the table: the moves name them; only who got which stays hidden)."""
    state = game.state or {}
    known = {c for cards in state["known"] for c in cards} | set(state.get("shuffled", []))
    return (other_hands(game, user_id) | set(state["stock"])) - known


def leaked(text: str, cards: set[str]) -> set[str]:
    """Which of ``cards`` ``text`` (JSON or a page's HTML) names, by code or by label."""
    return {c for c in cards if f'"{c}"' in text or label(c) in text}


def page_cards(page_json: dict) -> set[str]:
    text = json.dumps(page_json, ensure_ascii=False)
    return {c for c in DECK if f'"{c}"' in text}
