"""/notify alerts: a blocked subscriber not retried, a late link, a subscriber who left."""

from __future__ import annotations

from tests.e2e.harness import wait_for
from tests.e2e.koira_play import service_of
from tests.e2e.table_together_helpers import (
    GROUP,
    coyote_to_the_end,
    new_lobby,
    table_fixture,  # noqa: F401 (a fixture)
    tap,
)


async def test_notify_a_blocked_subscriber_is_not_retried_and_a_late_link(table) -> None:
    """Cat subscribes, then blocks the bot: the first alert is refused (403) and no later
    lobby tries her again, until she starts the bot again. /notify twice, /notify OFF twice;
    a rematch lobby alerts too; an alert's link pressed once its lobby started seats
    nobody."""
    api, (ann, bob, cat), _clock, runner = table
    await cat.send(GROUP, "/notify")
    await wait_for(lambda: bool(api.find_messages(GROUP, "I will tell you")))
    await cat.send(GROUP, "/notify")
    await wait_for(lambda: bool(api.find_messages(GROUP, "You will already be told")))
    await bob.send(GROUP, "/notify")
    await wait_for(lambda: len(api.find_messages(GROUP, "I will tell you")) == 2)
    cat.block_bot()

    def sends_to(user) -> int:
        return sum(1 for c in api.calls("sendMessage")
                   if str(c.params.get("chat_id")) == str(user.id))

    welcomed = sends_to(cat)  # (the welcome of her /start)

    lobby = await new_lobby(api, ann, "/newgame")
    await wait_for(lambda: bool(api.find_messages(bob.id, "A new game")))
    await api.settle(quiet=0.1)
    # the alert names the game (it said "A new game of classic is open")
    assert "A new game of Coyote (classic) is open" in \
        api.find_messages(bob.id, "A new game")[-1].text
    assert sends_to(cat) == welcomed + 1  # tried once, refused
    assert not await service_of(runner).reachable([cat.id])
    await tap(api, ann, lobby, "🚪 Leave")  # the lobby closes
    for _round in range(2):
        lobby = await new_lobby(api, ann, "/newgame")
        await api.settle(quiet=0.1)
        await tap(api, ann, lobby, "🚪 Leave")
    assert sends_to(cat) == welcomed + 1  # not retried
    assert len(api.find_messages(bob.id, "A new game")) == 3  # one per lobby

    said = len(api.bot_messages(cat.id))
    await cat.start_bot()  # back: the subscription still holds
    await wait_for(lambda: len(api.bot_messages(cat.id)) > said)  # (her /start is handled)
    lobby = await new_lobby(api, ann, "/newgame")
    await wait_for(lambda: bool(api.find_messages(cat.id, "A new game")))
    alert = api.find_messages(cat.id, "A new game")[-1]
    link = next(d for _, d in api.buttons(alert) if d and "start=" in d)
    await tap(api, ann, lobby, "🤖 Add AI", "🤖 Add AI", "▶️ Start")
    game = (await service_of(runner).open_game(GROUP, 0))
    await cat.start_bot(link.split("start=")[1])  # too late: the game started
    await api.settle(quiet=0.1)
    assert (await service_of(runner).get(game.id)).player(cat.id) is None

    # a rematch lobby alerts the subscribers who did not tap it
    final = await coyote_to_the_end(api, [ann], runner, game.id)
    told = len(api.find_messages(bob.id, "A new game"))
    await ann.press_and_settle(final, "🔁 Rematch")
    await wait_for(lambda: len(api.find_messages(bob.id, "A new game")) == told + 1)

    await cat.send(GROUP, "/notify OFF")
    await wait_for(lambda: bool(api.find_messages(GROUP, "no more messages")))
    await cat.send(GROUP, "/notify off")
    await wait_for(lambda: bool(api.find_messages(GROUP, "You were not getting")))
    assert not await service_of(runner).subscribed(GROUP, cat.id)


async def test_a_subscriber_who_left_the_group_is_not_alerted_nor_seated_by_a_link(
        table) -> None:
    """Bob asked for alerts, then was removed from the group: the group's next lobby sends
    him nothing and ``/start j<id>`` does not seat him (it did both: his subscription
    outlived his membership). Eve, who never started the bot, taps 🔔: the answer opens the
    private chat; after Start she is told of the next lobby."""
    api, (ann, bob, _cat), _clock, runner = table
    eve = api.add_user(5, "Eve")
    await bob.send(GROUP, "/notify")
    await wait_for(lambda: bool(api.find_messages(GROUP, "I will tell you")))
    lobby = await new_lobby(api, ann, "/newgame")
    await wait_for(lambda: bool(api.find_messages(bob.id, "A new game")))
    answer = await eve.press_and_settle(api.get_message(GROUP, lobby.message_id),
                                        "🔔 Next games")
    assert (answer.get("url") or "").endswith("?start=n"), answer
    await eve.start_bot("n")
    await wait_for(lambda: bool(api.bot_messages(eve.id)))
    await tap(api, ann, lobby, "🚪 Leave")
    api.user_leaves(bob, GROUP, by=ann)
    await api.settle(quiet=0.1)
    lobby = await new_lobby(api, ann, "/newgame")
    await wait_for(lambda: bool(api.find_messages(eve.id, "A new game")))
    await api.settle(quiet=0.1)
    assert len(api.find_messages(bob.id, "A new game")) == 1
    game = await service_of(runner).open_game(GROUP, 0)
    await bob.start_bot(f"j{game.id}")
    await api.settle(quiet=0.1)
    assert (await service_of(runner).get(game.id)).player(bob.id) is None
    assert not await service_of(runner).subscribed(GROUP, bob.id)
