"""A tournament survives SIGKILLs of the real bot process: a 9-player, 3-round
Coyote tournament (Ann the admin, Bob and Cat, six computer players, tables of 3, 2 lives)
played to its podium by ``python -m telegram_app`` against the fake Bot API on PostgreSQL, the
process killed with SIGKILL and spawned again on the same database right after ▶️ Start, right
after round 1's last human move, while round 3's announcement is being sent, and right after
the last move of all. Everything lives in the database: no round is seated twice, no result
is lost, the group gets each round's announcement once, each table's messages once and the
podium once.

The process runs on the real clock: the computer players' tables end as they are dealt, the
humans press their moves in their private chats. Each kill lands where the test puts it: the
fake Bot API holds the bot's requests from a chosen point on and fails them after the kill,
as if the process died before they left (:class:`Cut`), so nothing is half sent and nothing
may come twice. (A kill between a send and its record would show that message again, by
design: at least once.)

In a quiet group each hand of a table opens a new table message, so a table has several
messages headed "🏆 Tournament #1 · Round r · Table t": none may be posted twice, and each
table's end comes once."""

from __future__ import annotations

import asyncio
import re
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

import pytest

from league.service import MatchService
from tests.e2e.harness import choose, confirms, wait_for
from tests.e2e.processes import kill, spawn
from tests.e2e.test_tournaments import game_of, turn_message
from tests.fakebot import FakeBotAPI, FakeUser, StoredMessage
from tests.fakebot.models import ApiError

pytestmark = pytest.mark.process  # every test here starts the bot as a process

GROUP = -100290777
ROUNDS = 3
HEADING = re.compile(r"🏆 Tournament #1 · Round (\d) · Table (\d)$")


class Cut:
    """The fake Bot API holds the bot's requests that ``holds`` accepts (polling aside; by
    default every one) without carrying them out, and carries out the others;
    :meth:`drop` then fails the held ones unheard (the process was killed before they
    reached Telegram), :meth:`let_through` carries them out. Either restores the API's own
    handlers."""

    def __init__(self, api: FakeBotAPI,
                 holds: Callable[[str, dict[str, Any]], bool] = lambda *_: True) -> None:
        self.api = api
        self.holds = holds
        self.held: list[tuple[str, dict[str, Any]]] = []
        self.passing = 0
        self.passed_at = time.monotonic()
        self._originals = dict(api._handlers)
        self._open = asyncio.Event()
        self._drop = False
        for name, handler in self._originals.items():
            api._handlers[name] = self._gate(name, handler)

    def _gate(self, name: str, handler: Any) -> Any:
        async def gated(params: dict[str, Any]) -> Any:
            if not self._open.is_set() and self.holds(name, params):
                self.held.append((name, params))
                await self._open.wait()
                if self._drop:
                    raise ApiError(502, "Bad Gateway")  # (nobody reads it: the bot is dead)
            self.passing += 1
            try:
                result = handler(params)
                return await result if asyncio.iscoroutine(result) else result
            finally:
                self.passing -= 1
                self.passed_at = time.monotonic()
        return gated

    def holding(self, method: str, **params: Any) -> bool:
        """Whether a request of ``method`` with these parameters is held."""
        return any(name == method.lower() and all(p.get(k) == v for k, v in params.items())
                   for name, p in self.held)

    async def quiet(self, seconds: float = 0.2) -> None:
        """Wait until no request passed for ``seconds`` (the bot recorded what it sent)."""
        await wait_for(lambda: self.passing == 0
                       and time.monotonic() - self.passed_at >= seconds)

    def drop(self) -> None:
        self._drop = True
        self._release()

    def let_through(self) -> None:
        self._release()

    def _release(self) -> None:
        self.api._handlers.update(self._originals)
        self._open.set()


class Bot:
    """The real bot process on the test's database, killed and spawned again."""

    def __init__(self, api: FakeBotAPI, pg_url: str, log: Path) -> None:
        self.api, self.pg_url, self.log = api, pg_url, log
        self.process: asyncio.subprocess.Process | None = None

    async def spawn(self) -> None:
        polls = len(self.api.calls("getUpdates"))
        self.process = await spawn(self.api, self.pg_url, self.log)
        await wait_for(lambda: len(self.api.calls("getUpdates")) > polls, timeout=60)

    async def kill(self, cut: Cut | None = None) -> None:
        """SIGKILL; the requests ``cut`` holds never reach Telegram."""
        assert self.process is not None and self.process.returncode is None, self.logged()
        await kill(self.process)
        if cut is not None:
            cut.drop()

    def logged(self, tail: int | None = 4000) -> str:
        """The processes' log (its last ``tail`` characters)."""
        text = self.log.read_text(errors="replace") if self.log.exists() else ""
        return text[-tail:] if tail is not None else text


def announcements(api: FakeBotAPI, round_: int) -> list[StoredMessage]:
    return api.find_messages(GROUP, f"Coyote tournament #1: round {round_} of {ROUNDS}")


def finals(api: FakeBotAPI) -> list[StoredMessage]:
    return api.find_messages(GROUP, "tournament #1 is over!")


def current(api: FakeBotAPI, message: StoredMessage) -> StoredMessage:
    found = api.get_message(message.chat_id, message.message_id)
    assert found is not None
    return found


async def running(service: MatchService, round_: int) -> list[int]:
    """The games of round ``round_``'s tables still running."""
    return [t.game_id for t in (await service.tournament(1)).tables_of(round_)
            if t.status == "running"]


async def set_up(api: FakeBotAPI, users: list[FakeUser]) -> StoredMessage:
    """Ann opens a Coyote tournament of 3 rounds, tables of 3, 2 lives (short games), adds
    six computer players; Bob and Cat join. Returns the sign-up message."""
    ann = users[0]
    await ann.send(GROUP, "/tournament coyote")
    await wait_for(lambda: bool(api.find_messages(GROUP, "sign-up is open")))
    await api.settle(quiet=0.05)
    signup = api.find_messages(GROUP, "sign-up is open")[-1]
    for label in ("🔢 Fewer rounds", "🔢 Fewer rounds", "🪑 Smaller tables",
                  "❤️ Lives: 3", "❤️ Lives: 4", "❤️ Lives: 5", *["🤖 Add AI"] * 6):
        before = current(api, signup).reply_markup
        answer = await ann.press_and_settle(current(api, signup), label, quiet=0.05)
        assert not answer.get("show_alert"), (label, answer)
        # (the press is answered first; the bot process redraws the message after it)
        await wait_for(lambda before=before: current(api, signup).reply_markup != before)
    for user in users[1:]:
        before = current(api, signup).text
        answer = await user.press_and_settle(current(api, signup), "✋ Join", quiet=0.05)
        assert "You joined tournament #1" in answer["text"], answer
        await wait_for(lambda before=before: current(api, signup).text != before)
    text = current(api, signup).text or ""
    assert f"{ROUNDS} rounds" in text and "tables of 3" in text and "❤️ Lives: 2" in text, text
    assert "Players (9):" in text, text
    return signup


async def confirmed(api: FakeBotAPI, user: FakeUser, message: StoredMessage, data: str
                    ) -> str:
    """The callback data that makes the move ``data``: a 🐺 Coyote! that asks for a
    confirmation is pressed (it changes nothing yet), and its "Yes" is the move."""
    if not confirms(data):
        return data
    answer = await user.press_and_settle(message, data, quiet=0.02)
    assert not answer.get("show_alert"), answer

    def yes() -> str | None:
        return next((d for _, d in api.buttons(current(api, message))
                     if d and d.startswith("c:")), None)

    await wait_for(lambda: yes() is not None)
    return yes() or ""


async def play_round(api: FakeBotAPI, service: MatchService, humans: list[FakeUser],
                     round_: int, *, before_last: Callable[[], Cut] | None = None
                     ) -> Cut | None:
    """The humans press their moves until round ``round_``'s tables are over. With
    ``before_last``: each move at the round's last running table is made under the cut it
    returns (every request of the bot held from the press on); once the answer to the
    move that ended the round is held, that cut is returned still holding (the move is
    committed, nothing after it reached Telegram), the others are let through."""
    for _ in range(5000):
        if not await running(service, round_):
            return None
        pressed = False
        for user in humans:
            message = await turn_message(api, service, user, 1, round_)
            if message is None:
                continue
            data = await confirmed(api, user, message, choose(api, message))
            cut = None
            # (any move there may end the round: after a bid, a computer player may call
            # Coyote in the same commit)
            if before_last is not None and \
                    await running(service, round_) == [game_of(api, message)]:
                await api.settle(quiet=0.1)  # (nothing half sent when the cut begins)
                cut = before_last()
            query = await user.press(message, data)
            if cut is None:
                answer = await api.wait_answer(query)
                assert not answer.get("show_alert"), answer
            else:
                await wait_for(partial(cut.holding, "answerCallbackQuery",
                                       callback_query_id=query), timeout=30)
                if not await running(service, round_):
                    return cut
                cut.let_through()
                answer = await api.wait_answer(query)
                assert not answer.get("show_alert"), answer
            pressed = True
        if not pressed:  # (the next keyboards are on their way)
            await asyncio.sleep(0.02)
    raise AssertionError(f"round {round_}'s tables did not end")


def table_posts(api: FakeBotAPI) -> dict[tuple[int, int], list[str]]:
    """The texts of the group messages headed by each table, by (round, table)."""
    found: dict[tuple[int, int], list[str]] = {}
    for message in api.bot_messages(GROUP):
        heading = HEADING.match((message.text or "").split("\n")[0])
        if heading:
            found.setdefault((int(heading[1]), int(heading[2])), []).append(message.text or "")
    return found


def ends(api: FakeBotAPI) -> list[tuple[int, int]]:
    """The tables whose game's end the group was told, once per message."""
    return [table for table, texts in table_posts(api).items()
            for text in texts if re.search(r"🏁 Game #\d+ is over!", text)]


def round_three(_: str, params: dict[str, Any]) -> bool:
    """Whether a request of the bot is about round 3 (its tables, their players' private
    messages, its announcement)."""
    text = str(params.get("text"))
    return "Round 3 ·" in text or "round 3 of 3" in text


@pytest.mark.timeout(180)
async def test_a_tournament_survives_kills_of_the_bot_process(pg_db, pg_url: str,
                                                              tmp_path: Path) -> None:
    service = MatchService(pg_db)
    async with FakeBotAPI() as api:
        api.add_group(GROUP, "Cup night", admins=[1])
        humans = [api.add_user(i, name) for i, name in enumerate(("Ann", "Bob", "Cat"), 1)]
        for user in humans:
            await user.start_bot()
        bot = Bot(api, pg_url, tmp_path / "bot.log")
        await bot.spawn()
        try:
            signup = await set_up(api, humans)

            # Kill 1: right after ▶️ Start's commit (round 1 seated, its tables dealt, the
            # computer players' table over), before anything of it reached Telegram.
            cut = Cut(api)
            query = await humans[0].press(current(api, signup), "▶️ Start")
            await wait_for(lambda: cut.holding("answerCallbackQuery", callback_query_id=query))
            await bot.kill(cut)
            cup = await service.tournament(1)
            assert cup.status == "running" and cup.round == 1 and cup.told_round == 0
            assert len(cup.tables_of(1)) == 3 and not announcements(api, 1)
            await bot.spawn()
            await wait_for(lambda: bool(announcements(api, 1)))
            await wait_for(lambda: "round 1 of 3 is on" in (current(api, signup).text or ""))

            # Kill 2: right after round 1's last human move, before anything after it
            # reached Telegram (round 2 may be seated by then, or not yet).
            cut = await play_round(api, service, humans, 1, before_last=lambda: Cut(api))
            assert cut is not None
            await bot.kill(cut)
            await bot.spawn()
            await wait_for(lambda: bool(announcements(api, 2)))

            # Kill 3: round 2 played to its end, round 3 seated, and its messages on their
            # way (its tables, the private messages, its announcement: held), the end of
            # round 2 shown: the process dies with round 3 claimed and told to nobody.
            cut = Cut(api, round_three)
            assert await play_round(api, service, humans, 2) is None
            await wait_for(lambda: any("round 3 of 3" in str(p.get("text"))
                                       for _, p in cut.held))
            await cut.quiet()
            await bot.kill(cut)
            cup = await service.tournament(1)
            assert cup.round == 3 and cup.told_round == 2 and not announcements(api, 3)
            await bot.spawn()
            await wait_for(lambda: bool(announcements(api, 3)))

            # Round 3 to its end, and a kill right after its last move: the podium comes
            # from the next process.
            cut = await play_round(api, service, humans, 3, before_last=lambda: Cut(api))
            assert cut is not None
            await bot.kill(cut)
            assert not finals(api)
            await bot.spawn()
            await wait_for(lambda: bool(finals(api)))
            # (the last table's end is shown again once its move is older than the
            # delivery's grace: league.delivery.GRACE)
            await wait_for(lambda: len(ends(api)) == 9)
            await api.settle(quiet=0.3)
        finally:
            if bot.process is not None:
                await kill(bot.process)

        cup = await service.tournament(1)
        assert cup.status == "finished" and cup.round == ROUNDS and cup.told_round == ROUNDS + 1
        entries = sorted(e.id for e in cup.entries)
        assert len(entries) == 9
        for round_ in range(1, ROUNDS + 1):
            tables = cup.tables_of(round_)
            assert [t.table for t in tables] == [1, 2, 3], tables  # no round seated twice
            assert all(t.status == "finished" for t in tables), tables
            assert sorted(e for t in tables for e in t.entries) == entries  # each once
        assert len(cup.results) == 27 and not any(r.no_show for r in cup.results)
        assert sorted((r.round, r.entry_id) for r in cup.results) == \
            [(round_, e) for round_ in range(1, ROUNDS + 1) for e in entries]

        # The group: each round's announcement once, the podium once (an announcement may
        # come twice only after a kill between its send and its mark; no kill here lands
        # there), and every table shown, none of its messages twice.
        for round_ in range(1, ROUNDS + 1):
            assert len(announcements(api, round_)) == 1, round_
        assert len(finals(api)) == 1 and "🥇" in (finals(api)[0].text or "")
        posts = table_posts(api)
        assert sorted(posts) == [(r, t) for r in (1, 2, 3) for t in (1, 2, 3)], posts
        assert sorted(ends(api)) == sorted(posts), ends(api)  # each table's end once
        for table, texts in posts.items():
            assert len(set(texts)) == len(texts), (table, texts)
            hands = [lines[1] for lines in (text.split("\n") for text in texts)
                     if len(lines) > 1 and lines[1].startswith("🐺 Game #")]
            assert len(set(hands)) == len(hands), (table, texts)  # each hand's table once
        logged = bot.logged(tail=None)
        assert "ERROR" not in logged and "Traceback" not in logged, bot.logged()
