"""The results tests' group and moves: two lives each, a game played out to its end."""

from __future__ import annotations

from tests.e2e.harness import play_turn, wait_for
from tests.fakebot import FakeBotAPI, FakeUser

GROUP = -100431


async def lives_two(api: FakeBotAPI, admin: FakeUser) -> None:
    await admin.send(GROUP, "/settings")
    await wait_for(lambda: bool(api.find_messages(GROUP, "Defaults for new games")))
    await admin.press_and_settle(api.find_messages(GROUP, "Defaults for new games")[-1],
                                 "Coyote · ❤️ Lives: 3", quiet=0.05)


async def play_out(api: FakeBotAPI, players: list[FakeUser], overs: int) -> None:
    for _ in range(400):
        if len(api.find_messages(GROUP, "is over!")) > overs:
            break
        assert await play_turn(api, players, GROUP)
    await wait_for(lambda: len(api.find_messages(GROUP, "is over!")) > overs, timeout=60)
    await api.settle(quiet=0.1)
