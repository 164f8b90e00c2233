"""An evening in a Spanish group, through the real Application and the fake Bot API, followed
from the side of 민준 (Korean client), who never opened a private chat with the bot and plays
from the group (🎴, pings), next to Lucía and Mateo, who did. (Found by a review; each
failed before its fix.)"""

from __future__ import annotations

import pytest

from tests.e2e.harness import BotRunner, wait_for
from tests.fakebot import FakeBotAPI, FakeUser, StoredMessage

GROUP = -100991


def lobby_message(api: FakeBotAPI) -> StoredMessage | None:
    found = [m for m in api.bot_messages(GROUP)
             if any(d and d.startswith("j:") for _, d in api.buttons(m))]
    return found[-1] if found else None


@pytest.mark.parametrize("payload", ["n", None, "g1"],
                         ids=["notify_link", "plain_start", "lobby_link"])
async def test_starting_the_bot_from_a_lobby_drops_its_mute_mark(sqlite_url, payload) -> None:
    """민준 sits in the group's lobby, marked 🔕 with the hint "to get a message on your turn,
    tap Private chat and press Start". He sends /notify in the group, which answers with the
    link ``t.me/<bot>?start=n``, and opens it (or just sends /start): the bot may write to
    him now, so the lobby must drop his 🔕 and the hint, as ``/start g<id>`` (the lobby's own
    💬 link) does. Before the fix the lobby kept both (telling him to do what he had just
    done) until someone else changed the lobby. (``g1``, the lobby's own link, redrew it
    already: it stays as the reference.)"""
    async with FakeBotAPI() as api:
        api.add_group(GROUP, "Noche", admins=[1])
        lucia = api.add_user(1, "Lucía", language_code="es")
        minjun: FakeUser = api.add_user(3, "민준", language_code="ko")
        await lucia.start_bot()
        runner = BotRunner(api, sqlite_url)
        await runner.start()
        try:
            await lucia.send(GROUP, "/newgame")
            await wait_for(lambda: lobby_message(api) is not None)
            await api.settle(quiet=0.05)
            lobby = lobby_message(api)
            assert lobby is not None
            join = next(d for _, d in api.buttons(lobby) if d.startswith("j:"))
            await minjun.press_and_settle(lobby, join, quiet=0.05)
            lobby = api.get_message(GROUP, lobby.message_id)
            assert "🔕" in lobby.text, lobby.text
            await minjun.send(GROUP, "/notify")
            await wait_for(lambda: bool(api.find_messages(GROUP, "?start=n")))
            await api.settle(quiet=0.1)
            await minjun.start_bot(payload)
            await wait_for(lambda: bool(api.bot_messages(minjun.id)))
            await api.settle(quiet=0.3)
            lobby = api.get_message(GROUP, lobby.message_id)
            assert "🔕" not in lobby.text, lobby.text
        finally:
            await runner.stop()


async def test_the_notify_link_confirms_the_alerts(sqlite_url) -> None:
    """/notify from 민준, whom the bot cannot write to yet, answers with the link
    ``t.me/<bot>?start=n`` ("open a private chat with me and press Start"). He opens it.
    Before the fix he read only the newcomer's welcome ("Add me to a group…"), never that
    /notify was now on; he is now told, in Korean, that he will hear of the next game in
    the group, by its name."""
    async with FakeBotAPI() as api:
        api.add_group(GROUP, "Noche <b>", admins=[1])
        minjun: FakeUser = api.add_user(3, "민준", language_code="ko")
        runner = BotRunner(api, sqlite_url)
        await runner.start()
        try:
            await minjun.send(GROUP, "/notify")
            await wait_for(lambda: bool(api.find_messages(GROUP, "?start=n")))
            await minjun.start_bot("n")
            await wait_for(lambda: bool(api.bot_messages(minjun.id)))
            await api.settle(quiet=0.2)
            [answer] = [m.text for m in api.bot_messages(minjun.id)]
        finally:
            await runner.stop()
    assert "Noche <b>" in answer and "/notify off" in answer, answer
    assert "새 게임" in answer, answer
