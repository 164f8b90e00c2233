"""Playing Koira through the fake Bot API: the move buttons a player's private message
carries (``ky``/``kt``/``kw``/``kh``, ``telegram_app/games/koira/keyboards.py``), whose turn
it is, and a scripted player that carries out a chosen move by pressing what it sees (a
sequence: tap its cards, then Play)."""

from __future__ import annotations

import random
from collections.abc import Callable

from engine import GAMES, Action
from league.service import MatchService
from league.store.snapshots import GameSnapshot
from telegram_app.games.koira.keyboards import mask_of, parse
from telegram_app.services import KEY
from tests.e2e.harness import current_of, wait_for
from tests.fakebot import FakeBotAPI, FakeUser, StoredMessage

KOIRA = GAMES["koira"]
MOVE_VERBS = ("ky", "kt", "kw", "kh")
Chooser = Callable[[GameSnapshot, int, list[Action]], Action | None]
"""Picks a move for ``seat`` from its legal actions (``None``: the computer player's)."""


def service_of(runner) -> MatchService:
    """The running bot's match service (to read a game, as a test may)."""
    return runner.app.bot_data[KEY].service


def koira_version(api: FakeBotAPI, message: StoredMessage) -> int | None:
    """The game version the message's Koira move buttons carry (``None``: none)."""
    for _, data in api.buttons(message):
        if data and data.split(":")[0] in MOVE_VERBS:
            return int(data.split(":")[2])
    return None


def koira_turn(api: FakeBotAPI, user: FakeUser, newer_than: int = 0) -> StoredMessage | None:
    """``user``'s newest private message if it carries Koira move buttons drawn for a version
    above ``newer_than`` (it is their turn)."""
    messages = api.bot_messages(user.id)
    if not messages:
        return None
    version = koira_version(api, messages[-1])
    return messages[-1] if version is not None and version > newer_than else None


def moves(api: FakeBotAPI, message: StoredMessage) -> list[tuple[str, str]]:
    """The message's Koira move buttons as ``(label, data)`` (bidi marks stripped)."""
    return [(text.strip("\u2068\u2069"), data) for text, data in api.buttons(message)
            if data and data.split(":")[0] in MOVE_VERBS]


async def koira_mover(api: FakeBotAPI, players: list[FakeUser]
                      ) -> tuple[FakeUser, StoredMessage]:
    """The player whose private message carries the newest Koira move buttons, once exactly
    one does, and that message."""
    def found() -> list[tuple[int, FakeUser, StoredMessage]]:
        offers = [(koira_version(api, m) or 0, u, m) for u in players
                  if (m := koira_turn(api, u)) is not None]
        newest = max((v for v, _, _ in offers), default=None)
        return [offer for offer in offers if offer[0] == newest]

    try:
        await wait_for(lambda: len(found()) == 1, timeout=20)
    except TimeoutError:
        raise AssertionError(f"expected one Koira player to act, found {found()}") from None
    _, user, message = found()[0]
    return user, message


def _button(api: FakeBotAPI, message: StoredMessage, verb: str, mask: int | None = None
            ) -> str | None:
    for _, data in moves(api, message):
        cb = parse(data)
        if cb is not None and "k" + cb.verb == verb and (mask is None or cb.mask == mask):
            return data
    return None


async def carry_out(api: FakeBotAPI, user: FakeUser, message: StoredMessage,
                    game: GameSnapshot, action: Action) -> tuple[dict, str]:
    """Make ``action`` by pressing ``user``'s buttons on ``message`` (drawn for ``game``):
    a card or a sequence one tap away, else tapped card by card (each tap redraws the
    keyboard with its ticks) and played; the stock; the pick-up (``message`` may be an
    ephemeral one, 🎴's). Returns the last press's answer and data."""
    seat = game.player(user.id).seat
    hand = list(KOIRA.view(game.state, seat)["hand"])
    if action.kind == "stock":
        data = _button(api, message, "kw")
    elif action.kind == "pickup":
        data = _button(api, message, "kh")
    else:
        full = mask_of(hand, action.cards)
        data = _button(api, message, "ky", full)
        if data is None:
            chosen = 0
            for card in action.cards:
                chosen |= 1 << hand.index(card)
                step = _button(api, message, "kt", chosen)
                assert step is not None, (card, moves(api, message))
                answer = await user.press_and_settle(message, step, quiet=0.02)
                assert not answer.get("show_alert"), answer
                current = current_of(api, message)
                assert current is not None
                message = current
            data = _button(api, message, "ky", full)
    assert data is not None, (action, moves(api, message))
    return await user.press_and_settle(message, data, quiet=0.02), data


def computer_choice(game: GameSnapshot, seat: int) -> Action:
    """What the computer player would do in ``seat``'s place (seeded by the version: a
    replayable script)."""
    return KOIRA.ai_action(KOIRA.view(game.state, seat), random.Random(game.version))


async def koira_turn_by(api: FakeBotAPI, runner, players: list[FakeUser], group_id: int,
                        choose: Chooser | None = None, over: str = "is over!"
                        ) -> tuple[FakeUser, Action, StoredMessage, str]:
    """Let the human to act make a move (``choose``'s, else the computer player's choice)
    through their buttons, and wait until the next keyboard is out or the game is over.
    Returns who moved, what, the message pressed and the last data pressed on it (``over``:
    the group's words for the end, in the group's language)."""
    user, message = await koira_mover(api, players)
    pressed = koira_version(api, message) or 0
    game = await service_of(runner).get(int(message_game(api, message)))
    assert game.version == pressed, "the keyboard is not the game's newest"
    seat = game.player(user.id).seat
    action = (choose and choose(game, seat, KOIRA.legal_actions(game.state, seat))) or \
        computer_choice(game, seat)
    overs = len(api.find_messages(group_id, over))
    answer, data = await carry_out(api, user, message, game, action)
    assert not answer.get("show_alert"), answer
    await wait_for(lambda: any(koira_turn(api, u, pressed) for u in players)
                   or len(api.find_messages(group_id, over)) > overs)
    return user, action, message, data


def message_game(api: FakeBotAPI, message: StoredMessage) -> int:
    """The game id a message's Koira buttons name."""
    data = next(d for _, d in moves(api, message))
    return int(data.split(":")[1])
