"""A Koira game in the league's texts: /history names it Koira, /replay and the Mini App's
replay tell it in Koira's words (tricks, trump), never Coyote's; /settings draws each game's
own labels."""

from __future__ import annotations

import telegram_app.games.koira  # noqa: F401  (registers "koira")
from league.service import MatchService
from league.store.db import Database
from league.store.snapshots import UserRef
from telegram_app.i18n import use_language
from telegram_app.miniapp.league_api import replay_steps
from telegram_app.miniapp.text import plain
from telegram_app.render import league as render
from telegram_app.render.chat_settings import settings_keyboard
from tests.league.play import play_koira

CHAT = -3101
USERS = [UserRef(i, f"K{i}") for i in range(1, 4)]
COYOTE_WORDS = ("round", "bid", "showdown", "Coyote", "lives", "loses")


async def _koira_game(service: MatchService) -> int:
    return await play_koira(service, CHAT, USERS, seed=3)


async def test_history_and_replay_of_a_koira_game(pg_db: Database) -> None:
    service = MatchService(pg_db, new_seed=lambda: 11)
    game_id = await _koira_game(service)
    with use_language("en"):
        history = render.history_text(await service.history(CHAT, kind=None))
        game, log = await service.replay(game_id, CHAT)
        replay = render.replay_text(game, log)
        ui = telegram_app.games.koira.KOIRA
        steps, kept, _logged = replay_steps(
            [[plain(line) for line in ui.replay_lines(game, log[:i + 1])]
             for i in range(len(log))])
    assert f"#{game_id}" in history and "Koira:" in history
    assert "trump" in replay and "koira:" in replay and "1. " in replay, replay
    for text in (history.split("\n")[2], replay):
        assert not any(word in text for word in COYOTE_WORDS), text
    # the page rebuilds the whole replay step by step (each trick's line replaced as it grows)
    shown: list[str] = []
    replaced = False
    for step, keep in zip(steps, kept, strict=True):
        replaced = replaced or keep < len(shown)
        shown = shown[:keep] + step
    assert shown == [plain(line) for line in ui.replay_lines(game, log)]
    assert len(steps) > 5 and any("koira:" in line for line in shown) and replaced


def test_settings_labels_are_each_games_own() -> None:
    with use_language("en"):
        keyboard = settings_keyboard({"games": {"coyote": {"edition": "feathers"}}})
    labels = [row[0].text for row in keyboard.inline_keyboard]
    assert "Coyote · 🃏 Edition: feathers" in labels
    assert "Koira · 🔗 Shortest sequence: 2" in labels


def test_settings_show_no_option_with_one_value() -> None:
    """With poker-deck as the group's edition, lives have one value (4): /settings showed a
    "Coyote · ❤️ Lives: 4" button whose press changed nothing. Like the lobby, it now shows
    only options with a choice."""
    with use_language("en"):
        keyboard = settings_keyboard({"games": {"coyote": {"edition": "poker-deck"}}})
    labels = [row[0].text for row in keyboard.inline_keyboard]
    assert "Coyote · 🃏 Edition: poker-deck" in labels
    assert not any("Lives" in label for label in labels), labels
