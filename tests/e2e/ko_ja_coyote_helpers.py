"""Korean and Japanese players at a Coyote table with a fixed deal, for the tests of the
feathers and poker-deck editions: a group opened by one of them (its language is the
opener's), each player's private chat in their own language, and moves made as a player
makes them (a button pressed, or a number typed in the private chat)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from engine import GAMES
from telegram_app.games.coyote.keyboards import SPECIAL_CODES, guess_cards
from tests.e2e.harness import BotRunner, move_version, press_move, private_turn_message, wait_for
from tests.e2e.koira_play import service_of
from tests.fakebot import FakeBotAPI, FakeUser, StoredMessage

GROUP = -100664
COYOTE = GAMES["coyote"]
NAMES = {"ko": ["민지", "지우", "서연", "하준"], "ja": ["さくら", "たろう", "けんた", "ゆい"]}


def plain(html: str | None) -> str:
    """Telegram HTML as read: tags and the bidi marks around names left out."""
    return re.sub(r"<[^>]+>", "", html or "").replace("\u2068", "").replace("\u2069", "")


def full_width(text: str) -> str:
    """``text`` as a Japanese keyboard in full-width mode types it (``15`` → ``１５``)."""
    return "".join(chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else c for c in text)


@dataclass
class Table:
    api: FakeBotAPI
    runner: BotRunner
    players: list[FakeUser]

    async def game(self):
        return await service_of(self.runner).get(1)

    async def mover(self) -> tuple[FakeUser, StoredMessage]:
        """The player to act (by the game) and their private message with the buttons."""
        game = await self.game()
        seat = (game.state or {})["turn"]
        user = next(u for u in self.players if game.player(u.id).seat == seat)
        await wait_for(lambda: move_version(self.api, private_turn_message(self.api, user)
                                            or _EMPTY) == game.version)
        return user, private_turn_message(self.api, user)

    async def press(self, label: str) -> FakeUser:
        """The player to act presses the button ``label`` (``CALL``: 🐺 Coyote!, in any
        language, confirmed); waits until the game has moved on."""
        user, message = await self.mover()
        before = (await self.game()).version
        data = next((d for t, d in self.api.buttons(message) if d and (
            d.startswith(("c:", "cc:")) if label == CALL else t.strip("\u2068\u2069") == label)),
            None)
        assert data is not None, (label, self.api.buttons(message))
        await press_move(self.api, user, message, data)
        await self.moved(before)
        return user

    async def coin(self, name: str, guess: str | None = None) -> FakeUser:
        """The player to act uses the coin ``name`` (``guess``: the card they name, from the
        Guess keyboard); waits until the game has moved on."""
        user, message = await self.mover()
        before = (await self.game()).version
        if name == "guess":
            data = next(d for _t, d in self.api.buttons(message) if d and d.startswith("g:"))
            await user.press_and_settle(message, data, quiet=0.05)
            keyboard = self.api.get_message(message.chat_id, message.message_id)
            index = guess_cards(await self.game()).index(guess)
            data = next(d for _t, d in self.api.buttons(keyboard)
                        if d and d.startswith("q:") and d.endswith(f":{index}"))
            await user.press_and_settle(keyboard, data, quiet=0.05)
        else:
            data = next(d for _t, d in self.api.buttons(message)
                        if d and d.startswith("x:") and d.endswith(f":{SPECIAL_CODES[name]}"))
            await user.press_and_settle(message, data, quiet=0.05)
        await self.moved(before)
        return user

    async def type(self, text: str) -> FakeUser:
        """The player to act types ``text`` in their private chat; waits for the move."""
        user, _message = await self.mover()
        before = (await self.game()).version
        await user.send(user.id, text)
        await self.moved(before)
        return user

    async def moved(self, before: int) -> None:
        async def newer() -> bool:
            return (await self.game()).version > before
        for _ in range(1000):
            if await newer():
                break
            await self.api.settle(quiet=0.02)
        await self.api.settle(quiet=0.05)

    def group_texts(self) -> list[str]:
        return [plain(m.text) for m in self.api.bot_messages(GROUP)]

    def showdown(self) -> str:
        """The group's latest message that tells a showdown in full."""
        found = [t for t in self.group_texts()
                 if re.search(r"^🐺 .*(코요테|コヨーテ)", t, re.MULTILINE)]
        assert found, self.group_texts()[-3:]
        return found[-1]


CALL = "CALL"
_EMPTY = StoredMessage(chat_id=0, message_id=0, date=0, from_bot=True, sender_id=0)


async def open_table(api: FakeBotAPI, url: str, edition: str, languages: list[str], seed: int,
                     *presses: str) -> Table:
    """A group opened by the first of ``languages``' players with ``/newgame edition``; the
    others join in order (seat = place in ``languages``); the host presses ``presses`` (a
    lobby option) and starts. The deal is ``COYOTE.new_state(len, seed, options)``'s."""
    api.add_group(GROUP, "코요테의 밤" if languages[0] == "ko" else "コヨーテの夜", admins=[1])
    used = {"ko": 0, "ja": 0}
    players = []
    for i, language in enumerate(languages, start=1):
        base = language[:2]
        players.append(api.add_user(i, NAMES[base][used[base]], language_code=language))
        used[base] += 1
    for user in players:
        await user.start_bot()
    runner = BotRunner(api, url)
    await runner.start()
    await wait_for(lambda: all(api.bot_messages(u.id) for u in players))
    service_of(runner).new_seed = lambda: seed
    await players[0].send(GROUP, f"/newgame {edition}")

    def lobby() -> StoredMessage | None:
        found = [m for m in api.bot_messages(GROUP)
                 if any(d and d.startswith("j:") for _t, d in api.buttons(m))]
        return api.get_message(GROUP, found[-1].message_id) if found else None

    await wait_for(lambda: lobby() is not None)
    await api.settle(quiet=0.05)
    join = next(d for _t, d in api.buttons(lobby()) if d and d.startswith("j:"))
    for user in players[1:]:
        await user.press_and_settle(lobby(), join, quiet=0.02)
    for label in presses:
        await players[0].press_and_settle(lobby(), label, quiet=0.05)
    start = next(d for _t, d in api.buttons(lobby()) if d and d.startswith("s:"))
    await players[0].press_and_settle(lobby(), start, quiet=0.05)
    table = Table(api, runner, players)
    await table.mover()
    return table
