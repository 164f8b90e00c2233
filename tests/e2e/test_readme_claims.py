"""README claims checked through the real bot (a review of README.md and DEVELOPERS.md).

Each test sends what the README says a player or an admin sends, where it says they send it
(a group, or the private chat), and checks the answer the README promises: the command
table's "where" column, the /settings defaults and ranges, the lobby's defaults, and /start
mid-game. (The false statements the review found were in the documents only: mended.)
"""

from __future__ import annotations

from tests.e2e.harness import bot_table, labels, mover, open_lobby, wait_for
from tests.fakebot import FakeBotAPI, FakeUser

GROUP = -100777


def last_text(api: FakeBotAPI, chat_id: int) -> str:
    messages = api.bot_messages(chat_id)
    return (messages[-1].text or "") if messages else ""


async def ask(api: FakeBotAPI, user: FakeUser, chat_id: int, command: str) -> str:
    """``user`` sends ``command`` in ``chat_id``; the bot's newest message there after it."""
    before = len(api.bot_messages(chat_id))
    await user.send(chat_id, command)
    await wait_for(lambda: len(api.bot_messages(chat_id)) > before)
    await api.settle(quiet=0.05)
    return last_text(api, chat_id)


async def test_each_command_answers_where_the_readme_table_says(sqlite_url) -> None:
    """README "Playing", the command table: group-only commands refuse the private chat
    (and say where to send them), private-only ones the group; "anywhere" ones answer in
    both."""
    async with bot_table(sqlite_url, GROUP, "Claims", ["Ann", "Bob", "Cat"]) as (
            api, (ann, bob, _cat), _runner):
        # group only
        assert "in a group" in await ask(api, ann, ann.id, "/standings")
        assert "Use /replay" in await ask(api, ann, ann.id, "/replay 1")
        assert "send /tournament there" in await ask(api, ann, ann.id, "/tournament")
        assert "Send /notify in a group" in await ask(api, ann, ann.id, "/notify")
        assert "Send /settings in a group" in await ask(api, ann, ann.id, "/settings")
        assert "send /newgame there" in await ask(api, ann, ann.id, "/newgame")
        assert "Send /leave in the group" in await ask(api, ann, ann.id, "/leave")
        assert "Send /cancel in the group" in await ask(api, ann, ann.id, "/cancel")
        # private only: in the group, a hint to send it privately
        assert "private chat" in await ask(api, ann, GROUP, "/language")
        assert "private chat" in await ask(api, ann, GROUP, "/confirm off")
        # anywhere
        for chat in (ann.id, GROUP):
            assert "Leaderboard" in await ask(api, ann, chat, "/top")
            assert "Elo 1500" in await ask(api, ann, chat, "/rating")
            assert "feather" in (await ask(api, ann, chat, "/rules feathers")).lower()
        # /rating in a group shows the rank in the group, privately none
        assert "Rank in this chat" in await ask(api, ann, GROUP, "/rating")
        assert "Rank in this chat" not in await ask(api, ann, ann.id, "/rating")
        # /history: privately, no games (they are listed in each group)
        assert "Send /history in a group" in await ask(api, ann, ann.id, "/history")
        assert "Last games in this chat" in await ask(api, ann, GROUP, "/history")
        # /settings, /pause, /resume: admins only (Ann is the group's admin, Bob is not)
        assert "only the group's admins" in await ask(api, bob, GROUP, "/settings")
        assert "only the group's admins" in await ask(api, bob, GROUP, "/pause")


async def test_settings_defaults_and_season_range(sqlite_url) -> None:
    """README "The league": weeks in UTC by default, seasons of 4 weeks, ``/settings season
    N`` with N from 1 to 52; ``/settings language ko|ja|es|en``."""
    async with bot_table(sqlite_url, GROUP, "Claims", ["Ann", "Bob", "Cat"]) as (
            api, (ann, _bob, _cat), _runner):
        text = await ask(api, ann, GROUP, "/settings")
        assert "UTC" in text and "seasons of 4 weeks" in text, text
        assert "seasons of 52 weeks" in await ask(api, ann, GROUP, "/settings season 52")
        assert "seasons of 52" not in await ask(api, ann, GROUP, "/settings season 53")
        assert "seasons of 1 weeks" in await ask(api, ann, GROUP, "/settings season 1")
        assert "not available" in await ask(api, ann, GROUP, "/settings season 0")
        settings = api.bot_messages(GROUP)[-2]  # (the keyboard of /settings season 1)
        shown = labels(api, settings)
        for label in ("⏱ Pace: standard", "⏰ On timeout: computer plays, removed after 2",
                      "🤖 Stand-in level: normal", "🔕 Group: the table is edited"):
            assert label in shown, shown


async def test_lobby_defaults_and_start_resends_the_private_message(sqlite_url) -> None:
    """README "The lobby": ⏱ standard pace, Coyote classic with 3 lives and masks, 🤖 Add
    AI / ➖ Remove AI, ▶️ Start, 🔔 Next games, 💬 Private chat; README "Message economy":
    ``/start`` mid-game sends the private message again and deletes the old one."""
    async with bot_table(sqlite_url, GROUP, "Claims", ["Ann", "Bob", "Cat"]) as (
            api, players, _runner):
        lobby = await open_lobby(api, players, GROUP)
        shown = labels(api, api.get_message(GROUP, lobby.message_id))
        for label in ("✋ Join", "🚪 Leave", "❤️ Lives: 3", "⏱ Pace: standard", "🤖 Add AI",
                      "➖ Remove AI", "▶️ Start", "🔔 Next games", "💬 Private chat"):
            assert label in shown, shown
        assert any(label.startswith("🎭 Masks") for label in shown), shown
        await players[0].press_and_settle(api.get_message(GROUP, lobby.message_id),
                                          "▶️ Start")
        first = await mover(api, players)
        old = api.bot_messages(first.id)[-1]
        await first.start_bot()
        await wait_for(lambda: api.bot_messages(first.id)[-1].message_id != old.message_id)
        await api.settle(quiet=0.05)
        current = api.get_message(first.id, old.message_id)
        assert current is None or current.deleted, "the old turn message is still there"


async def test_koira_options_and_game_named_first(sqlite_url) -> None:
    """README "Koira": ``/newgame koira tie_split trump_ends_trick pickup_single 3`` sets the
    lobby's four options; README "The league": ``/standings koira last``, ``/rating koira``
    and ``/top koira`` name Koira's league."""
    async with bot_table(sqlite_url, GROUP, "Claims", ["Ann", "Bob", "Cat"]) as (
            api, players, _runner):
        lobby = await open_lobby(api, players, GROUP,
                                 "/newgame koira tie_split trump_ends_trick pickup_single 3")
        shown = labels(api, api.get_message(GROUP, lobby.message_id))
        for label in ("⚖️ Ties: share", "✂️ Trump ends trick: on", "📥 Pick up: one card",
                      "🔗 Sequences: 3+ cards", "⏱ Pace: standard"):
            assert label in shown, shown
        ann = players[0]
        assert "Koira" in await ask(api, ann, GROUP, "/standings koira last")
        assert "Koira" in await ask(api, ann, GROUP, "/rating koira")
        assert "Koira" in await ask(api, ann, ann.id, "/top koira")
