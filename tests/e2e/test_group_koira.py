"""Koira played from the group (🎴, ephemeral messages), in Japanese and
Korean, with nobody or only some players having a private chat with the bot. Each test
drives the real Application through the fake Bot API and checks what new players would
notice: hidden cards, live buttons left behind, pings, English, presses without an answer,
and the group's count of new messages (README, "Message economy")."""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest

from telegram_app.i18n import _, use_language
from tests.e2e.harness import BotRunner, current_of, wait_for
from tests.e2e.koira_play import (
    KOIRA,
    carry_out,
    computer_choice,
    koira_turn,
    koira_version,
    moves,
    service_of,
)
from tests.english_check import log_faults
from tests.fakebot import FakeBotAPI, FakeUser, StoredMessage

GROUP = -100771
SEED = 20260603


def tr(language: str, message: str) -> str:
    with use_language(language):
        return _(message)


def peek_button(api: FakeBotAPI, message: StoredMessage) -> str | None:
    return next((d for _, d in api.buttons(message) if d and d.startswith("p:")), None)


def table_message(api: FakeBotAPI) -> StoredMessage | None:
    tables = [m for m in api.bot_messages(GROUP) if peek_button(api, m)]
    return tables[-1] if tables else None


def live(api: FakeBotAPI, user: FakeUser) -> StoredMessage | None:
    found = api.ephemeral_messages(GROUP, user.id)
    assert len(found) <= 1, [m.text for m in found]
    return found[0] if found else None


def refetch(api: FakeBotAPI, message: StoredMessage) -> StoredMessage:
    current = current_of(api, message)
    assert current is not None
    return current


@dataclass
class Table:
    api: FakeBotAPI
    runner: BotRunner
    players: list[FakeUser]
    group_only: set[int]
    game_id: int = 0
    turns: int = 0
    peeks: int = 0
    problems: list[str] = field(default_factory=list)


async def open_table(api: FakeBotAPI, sqlite_url: str, languages: list[str],
                     started: list[bool], names: list[str] | None = None,
                     command: str = "/newgame koira", ai: int = 0, clock=None
                     ) -> Table:
    """A group where user 1 is admin; users with ``languages``; those ``started`` opened a
    private chat. User 1 opens the lobby (the group takes their language), the others join,
    ``ai`` computer seats, start."""
    api.add_group(GROUP, "犬の夜", admins=[1])
    names = names or [f"P{i}" for i in range(1, len(languages) + 1)]
    players = [api.add_user(i, name, language_code=lang)
               for i, (name, lang) in enumerate(zip(names, languages, strict=True), 1)]
    for user, s in zip(players, started, strict=True):
        if s:
            await user.start_bot()
    runner = BotRunner(api, sqlite_url, **({} if clock is None else {
        "clock": clock, "sweep_interval": 0.05}))
    await runner.start()
    service_of(runner).new_seed = lambda: SEED
    host = players[0]
    await host.send(GROUP, command)
    await wait_for(lambda: any(peek_button(api, m) is None and any(
        d and d.startswith("j:") for _, d in api.buttons(m)) for m in api.bot_messages(GROUP)))
    await api.settle(quiet=0.05)
    lobby = [m for m in api.bot_messages(GROUP)
             if any(d and d.startswith("j:") for _, d in api.buttons(m))][-1]
    join = next(d for _, d in api.buttons(lobby) if d.startswith("j:"))
    for user in players[1:]:
        answer = await user.press_and_settle(lobby, join, quiet=0.02)
        assert not answer.get("show_alert"), answer
    lobby = api.get_message(GROUP, lobby.message_id)
    for _n in range(ai):
        add = next(d for t, d in api.buttons(lobby) if "🤖" in t)
        await host.press_and_settle(lobby, add, quiet=0.02)
        lobby = api.get_message(GROUP, lobby.message_id)
    start = next(d for t, d in api.buttons(lobby) if "▶️" in t)
    answer = await host.press_and_settle(lobby, start, quiet=0.05)
    assert not answer.get("show_alert"), answer
    await wait_for(lambda: table_message(api) is not None)
    await api.settle(quiet=0.05)
    game_id = int(peek_button(api, table_message(api)).split(":")[1])
    return Table(api, runner, players, {u.id for u, s in zip(players, started, strict=True)
                                        if not s}, game_id)


async def group_turn(t: Table, user: FakeUser, version: int) -> StoredMessage:
    """``user`` (no private chat) gets the move buttons of ``version``: the ephemeral
    message they have if the bot edited the turn in, else 🎴 on the table."""
    api = t.api

    def ready() -> StoredMessage | None:
        m = live(api, user)
        return m if m is not None and koira_version(api, m) == version else None

    try:
        await wait_for(lambda: ready() is not None, timeout=3)
        return ready()  # type: ignore[return-value]
    except TimeoutError:
        pass
    table = table_message(api)
    assert table is not None
    answer = await user.press_and_settle(table, peek_button(api, table), quiet=0.02)
    t.peeks += 1
    if answer.get("show_alert") or answer.get("text"):
        t.problems.append(f"🎴 answered {answer!r}")
    await wait_for(lambda: ready() is not None, timeout=30)  # (a loaded CI machine)
    return ready()  # type: ignore[return-value]


async def make_move(t: Table, user: FakeUser, message: StoredMessage, game, action=None
                    ) -> dict:
    action = action or computer_choice(game, game.player(user.id).seat)
    return (await carry_out(t.api, user, message, game, action))[0]


async def current(t: Table):
    await t.api.settle(quiet=0.05)
    return await service_of(t.runner).get(t.game_id)


async def play_one(t: Table, check=None) -> bool:
    """The player to act makes the computer's choice; ``False`` once the game is over."""
    api = t.api
    game = await current(t)
    if game.status != "running":
        return False
    seat = KOIRA.current_seat(game.state)
    player = game.at_seat(seat)
    user = next((u for u in t.players if u.id == player.user_id), None)
    assert user is not None, "a computer seat to act after a settle?"
    if user.id in t.group_only:
        message = await group_turn(t, user, game.version)
    else:
        await wait_for(lambda: (m := koira_turn(api, user)) is not None
                       and koira_version(api, m) == game.version)
        message = koira_turn(api, user)
    if check is not None:
        await check(t, game, user, message)
    answer = await make_move(t, user, message, game)
    assert not answer.get("show_alert"), answer
    t.turns += 1
    assert t.turns < 600
    return True


def group_sends(api: FakeBotAPI, since: int = 0) -> list:
    """Log entries of new messages everyone in the group sees."""
    return [e for e in api.log[since:] if e.kind in ("send", "photo") and e.chat_id == GROUP
            and e.receiver is None]


@pytest.fixture
async def api():
    async with FakeBotAPI() as fake:
        yield fake


def plain(text: str | None) -> str:
    return (text or "").replace("\u2068", "").replace("\u2069", "")


PING = "{name}, your turn: 🎴 on the table shows your cards and moves."


def ping_tail(language: str) -> str:
    return tr(language, PING).split("{name}")[1]


def pings(api: FakeBotAPI, language: str, *, alive: bool = False) -> list[StoredMessage]:
    tail = ping_tail(language)
    return [m for m in api.messages(GROUP, include_deleted=not alive)
            if m.from_bot and m.receiver_id is None and tail in (m.text or "")
            and not (alive and m.deleted)]


class Watch:
    """Checks made before each move, once the bot settled: the table, pings and ephemeral
    messages as a player sees them then."""

    def __init__(self, language: str) -> None:
        self.language = language
        self.faults: list[str] = []
        self.pinged: dict[int, int] = {}  # version -> pings sent before that turn
        self.seen_pings = 0

    async def __call__(self, t: Table, game, user: FakeUser, message: StoredMessage) -> None:
        api = t.api
        lang = self.language
        live_pings = pings(api, lang, alive=True)
        all_pings = pings(api, lang)
        new = all_pings[self.seen_pings:]
        self.seen_pings = len(all_pings)
        name = user.first_name
        if len(live_pings) > 1:
            self.faults.append(f"v{game.version}: {len(live_pings)} live pings: "
                               f"{[m.text for m in live_pings]}")
        if len(new) > 1:
            self.faults.append(f"v{game.version}: pinged {len(new)} times at once: "
                               f"{[m.text for m in new]}")
        for m in live_pings:
            if not plain(m.text).startswith(name):
                self.faults.append(f"v{game.version}: a live ping names another than "
                                   f"{name}: {m.text}")
        if user.id not in t.group_only:
            for m in new:
                if plain(m.text).startswith(name):
                    self.faults.append(f"v{game.version}: {name} has a private chat but "
                                       f"was pinged in the group")
        for other in t.players:
            if other is user or other.id not in t.group_only:
                continue
            eph = live(api, other)
            if eph is not None and moves(api, eph):
                self.faults.append(f"v{game.version}: {other.first_name}'s ephemeral "
                                   f"message still has move buttons off-turn: "
                                   f"{moves(api, eph)[:3]}")


def hidden_card_faults(api: FakeBotAPI, t: Table, language: str) -> list[str]:
    """No text everyone in the group sees shows a hand; each ephemeral message went to
    its receiver only; the group-only players got nothing in private."""
    faults = []
    hand_word = tr(language, "Your hand: {cards}").split("{cards}")[0]
    for entry in api.log:
        if entry.chat_id == GROUP and entry.kind in ("send", "edit") and \
                entry.receiver is None and hand_word in (entry.text or ""):
            faults.append(f"a hand in the group: {entry.text[:200]}")
    for m in api.ephemeral_messages(GROUP, None, True):
        if m.receiver_id not in t.group_only and m.receiver_id is not None:
            pass  # (a player with a private chat may press 🎴 too)
    for u in t.players:
        if u.id in t.group_only and api.bot_messages(u.id):
            faults.append(f"{u.first_name} got a private message")
    return faults


async def play_to_end(t: Table, watch: Watch) -> None:
    while await play_one(t, watch):
        pass
    await t.api.settle(quiet=0.2)


# ---------------------------------------------------------------------------------------
# ---------------------------------------------------------------------------------------
NAMES = {"ja": ["ハナ", "ユキ", "ソラ", "リク"], "ko": ["하나", "유키", "소라", "리쿠"]}


def end_checks(api: FakeBotAPI, t: Table, language: str, since: int) -> list[str]:
    faults = []
    left = [m for m in api.ephemeral_messages(GROUP, None, True) if not m.deleted]
    if left:
        faults.append(f"ephemeral messages left after the end: {[m.text[:80] for m in left]}")
    if pings(api, language, alive=True):
        faults.append("a ping left after the end")
    for m in api.bot_messages(GROUP):
        if m.receiver_id is None and peek_button(api, m):
            faults.append(f"a table still has 🎴 after the end: {m.text[:80]}")
    tail = ping_tail(language)
    posts = [e.text for e in group_sends(api, since) if tail not in (e.text or "")]
    if len(posts) != 4:  # the lobby, the table, phase 2, the end (README: four a game)
        faults.append(f"{len(posts)} group posts besides pings: "
                      f"{[(p or '')[:40] for p in posts]}")
    return faults


@pytest.mark.parametrize(("language", "count"), [("ja", 3), ("ko", 4)])
async def test_a_whole_game_from_the_group_alone(api, sqlite_url, language, count) -> None:
    """Nobody has a private chat: every move through 🎴 and its ephemeral message."""
    names = NAMES[language][:count]
    t = await open_table(api, sqlite_url, [language] * count, [False] * count, names=names)
    try:
        watch = Watch(language)
        await play_to_end(t, watch)
        game = await current(t)
        assert game.status == "finished"
        faults = watch.faults + hidden_card_faults(api, t, language) + \
            end_checks(api, t, language, 0)
        faults += [str(f) for f in log_faults(api.log, {GROUP: language},
                                              {n: language for n in names}, tuple(names))]
        assert not faults, faults[:15]
    finally:
        await t.runner.stop()


def private_faults(api: FakeBotAPI, t: Table, game, user: FakeUser) -> list[str]:
    """Players with a private chat who are not to act hold no live move buttons there."""
    faults = []
    for other in t.players:
        if other.id in t.group_only or other is user:
            continue
        stale = [m for m in api.bot_messages(other.id) if moves(api, m)]
        if stale:
            faults.append(f"v{game.version}: {other.first_name}'s private chat keeps move "
                          f"buttons off-turn (v{koira_version(api, stale[-1])})")
    return faults


class MixedWatch(Watch):
    def __init__(self, language: str, peekers: set[int] = frozenset()) -> None:
        super().__init__(language)
        self.peekers = peekers

    async def __call__(self, t: Table, game, user: FakeUser, message: StoredMessage) -> None:
        await super().__call__(t, game, user, message)
        self.faults += private_faults(t.api, t, game, user)
        for other in t.players:  # a private player's own 🎴 message: no buttons off-turn
            if other is user or other.id in t.group_only:
                continue
            eph = live(t.api, other)
            if eph is not None and moves(t.api, eph):
                self.faults.append(f"v{game.version}: {other.first_name}'s 🎴 message "
                                   f"keeps move buttons off-turn")


@pytest.mark.parametrize("language", ["ja", "ko"])
async def test_a_mixed_table(api, sqlite_url, language) -> None:
    """Two players with a private chat, two without: the first two are never named in the
    group, the others once a turn; nobody keeps move buttons off-turn anywhere."""
    names = NAMES[language]
    t = await open_table(api, sqlite_url, [language] * 4, [True, False, True, False],
                         names=names)
    try:
        watch = MixedWatch(language)
        await play_to_end(t, watch)
        faults = watch.faults + hidden_card_faults(api, t, language) + \
            end_checks(api, t, language, 0)
        languages = {GROUP: language} | {u.id: language for u in t.players}
        faults += [str(f) for f in log_faults(api.log, languages,
                                              {n: language for n in names}, tuple(names))]
        assert not faults, faults[:15]
    finally:
        await t.runner.stop()


async def test_a_player_with_a_private_chat_who_plays_by_the_tables_button(
        api, sqlite_url) -> None:
    """A Korean player who started the bot plays every turn from the group anyway (🎴):
    the keyboard in their private chat must not stay live beside the one in the group, and
    theirs in the group must lose its buttons once they moved."""
    language = "ko"
    names = NAMES[language][:3]
    t = await open_table(api, sqlite_url, [language] * 3, [True, False, False], names=names)
    host = t.players[0]
    t.group_only.add(host.id)  # (plays as if group-only: by 🎴)
    try:
        faults: list[str] = []
        watch = Watch(language)
        for _ in range(40):
            game = await current(t)
            if game.status != "running":
                break
            seat = KOIRA.current_seat(game.state)
            if game.at_seat(seat).user_id != host.id:
                await play_one(t, watch)
                continue
            await play_one(t, watch)
            await t.api.settle(quiet=0.1)
            game = await current(t)
            if KOIRA.current_seat(game.state) == seat:
                continue
            stale = [m for m in api.bot_messages(host.id) if moves(api, m)]
            if stale:
                faults.append(f"v{game.version}: the private message keeps move buttons "
                              f"after a move made by 🎴")
            eph = live(api, host)
            if eph is not None and moves(api, eph):
                faults.append(f"v{game.version}: the 🎴 message keeps move buttons")
        assert not faults + watch.faults, (faults + watch.faults)[:10]
    finally:
        await t.runner.stop()


def mover_of(t: Table, game) -> FakeUser:
    uid = game.at_seat(KOIRA.current_seat(game.state)).user_id
    return next(u for u in t.players if u.id == uid)


async def test_presses_on_the_group_view_in_korean(api, sqlite_url) -> None:
    """A non-player's 🎴; a double tap on an ephemeral move; an old keyboard pressed after
    the turn moved on: each answered in Korean, nothing shown to the wrong person, and the
    pressed message left without live buttons."""
    language = "ko"
    names = NAMES[language][:3]
    t = await open_table(api, sqlite_url, [language] * 3, [False] * 3, names=names)
    eve = api.add_user(9, "이브", language_code="ko")
    faults: list[str] = []
    try:
        table = table_message(api)
        sends = len(api.calls("sendMessage"))
        answer = await eve.press_and_settle(table, peek_button(api, table), quiet=0.05)
        if answer.get("text") != tr("ko", "You are not playing in this game."):
            faults.append(f"a stranger's 🎴: {answer!r}")
        if len(api.calls("sendMessage")) != sends:
            faults.append("a stranger's 🎴 sent something")
        # a double tap of one move on the ephemeral message
        game = await current(t)
        user = mover_of(t, game)
        message = await group_turn(t, user, game.version)
        data = next((d for _, d in moves(api, message) if d.startswith("ky:")))
        first = await user.press_raw_on(message, data)
        second = await user.press_raw_on(message, data)
        answers = [await api.wait_answer(first), await api.wait_answer(second)]
        await api.settle(quiet=0.1)
        if answers[1].get("show_alert") or \
                answers[1].get("text") != tr("ko", "You already moved this turn."):
            faults.append(f"a double tap: {answers!r}")
        if (await current(t)).version != game.version + 1:
            faults.append("a double tap made two moves?")
        # the old keyboard, pressed two turns later
        old = data
        await play_one(t)
        game = await current(t)
        eph = live(api, user)
        if eph is not None:
            answer = await api.wait_answer(await user.press_raw_on(eph, old))
            await api.settle(quiet=0.1)
            if any(ord(c) < 128 and c.isalpha() for c in answer.get("text", "")):
                faults.append(f"an old keyboard's press answered in English: {answer!r}")
            eph = live(api, user)
            if eph is not None and moves(api, eph) and \
                    mover_of(t, await current(t)) is not user:
                faults.append("the old keyboard's message kept move buttons")
        if (await current(t)).version != game.version:
            faults.append("an old keyboard made a move")
        assert not faults, faults
    finally:
        await t.runner.stop()


async def test_the_tables_button_after_going_out_and_after_the_end(api, sqlite_url) -> None:
    """Japanese: a player who got rid of their cards (safe) presses 🎴; after the end, a
    press of 🎴 on the closed tables (a client that did not redraw them yet) and of a
    stale ephemeral keyboard: answers in Japanese that fit what happened; no ephemeral
    message left."""
    language = "ja"
    names = NAMES[language][:4]
    t = await open_table(api, sqlite_url, [language] * 4, [False] * 4, names=names)
    faults: list[str] = []
    try:
        safe_answer = None
        tables: list[tuple[int, str]] = []  # every table's message id and its 🎴 data
        while True:
            tbl = table_message(api)
            if tbl is not None and (tbl.message_id, peek_button(api, tbl)) not in tables:
                tables.append((tbl.message_id, peek_button(api, tbl)))
            game = await current(t)
            if game.status != "running":
                break
            out = [s for s in range(4) if s not in KOIRA.still_playing(game.state)]
            if out and safe_answer is None:
                safe = next(u for u in t.players if u.id == game.at_seat(out[0]).user_id)
                if live(api, safe) is not None and moves(api, live(api, safe)):
                    faults.append("the safe player's ephemeral message keeps move buttons")
                safe_answer = await safe.press_and_settle(tbl, peek_button(api, tbl),
                                                          quiet=0.05)
                if live(api, safe) is not None:
                    faults.append("a safe player was sent an ephemeral message")
            await play_one(t)
        await api.settle(quiet=0.1)
        faults += end_checks(api, t, language, 0)
        # 'You are out of this game' fits one who left or was removed: told to one who won
        # their way out (safe, placed) it reads as if they had been thrown out.
        removed = tr("ja", "You are out of this game: follow the rest on the table.")
        if safe_answer is None:
            faults.append("nobody went out before the end?")
        elif safe_answer.get("text") == removed or "1" not in (safe_answer.get("text") or ""):
            faults.append(f"a safe player's 🎴 is not told their place: {safe_answer!r}")
        for message_id, data in tables:
            answer = await api.wait_answer(await t.players[1].press_raw(GROUP, message_id,
                                                                        data))
            text = answer.get("text") or ""
            if not text or any("a" <= c.lower() <= "z" for c in text):
                faults.append(f"🎴 on a closed table after the end: {answer!r}")
        assert not faults, faults
    finally:
        await t.runner.stop()


async def test_leaving_on_ones_turn_from_the_group(api, sqlite_url) -> None:
    """Korean, four players without a private chat: the one to act, holding their 🎴
    message with its buttons, sends /leave. Their message goes (or loses its buttons), their
    ping goes, the next player is pinged once, and their 🎴 afterwards is refused in
    Korean without showing cards."""
    language = "ko"
    names = NAMES[language]
    t = await open_table(api, sqlite_url, [language] * 4, [False] * 4, names=names)
    faults: list[str] = []
    try:
        for _ in range(3):
            await play_one(t)
        game = await current(t)
        leaver = mover_of(t, game)
        await group_turn(t, leaver, game.version)
        before = len(pings(api, language))
        since = len(api.log)
        await leaver.send(GROUP, "/leave")
        await wait_for(lambda: len(group_sends(api, since)) >= 1)
        await api.settle(quiet=0.3)
        game = await current(t)
        nxt = mover_of(t, game)
        eph = live(api, leaver)
        if eph is not None and moves(api, eph):
            faults.append("the leaver's 🎴 message keeps its move buttons")
        if eph is not None:
            faults.append(f"the leaver's 🎴 message stays: {eph.text[:100]}")
        alive = pings(api, language, alive=True)
        if any(plain(m.text).startswith(leaver.first_name) for m in alive):
            faults.append("the leaver's ping stays")
        new = pings(api, language)[before:]
        named = [m for m in new if plain(m.text).startswith(nxt.first_name)]
        if len(named) != 1:
            faults.append(f"the next player pinged {len(named)} times: "
                          f"{[e.text for e in group_sends(api, since)]}")
        table = table_message(api)
        answer = await leaver.press_and_settle(table, peek_button(api, table), quiet=0.05)
        if answer.get("text") != tr("ko", "You are out of this game: follow the rest on "
                                          "the table."):
            faults.append(f"the leaver's 🎴: {answer!r}")
        if live(api, leaver) is not None:
            faults.append("the leaver was sent their cards")
        await play_to_end(t, Watch(language))
        # (a departure posts a note of its own: the count of posts does not apply)
        faults += [f for f in end_checks(api, t, language, 0) if "group posts" not in f]
        assert not faults, faults
    finally:
        await t.runner.stop()


async def test_a_timeout_of_a_player_without_a_private_chat(api, sqlite_url) -> None:
    """Japanese: the player to act from the group, their 🎴 message open, lets the clock
    run out. The computer plays for them: the buttons leave their message, their ping goes,
    the next player is pinged once; when the turn comes back to them they are pinged
    again."""
    from datetime import UTC, datetime

    from tests.clock import Clock

    language = "ja"
    clock = Clock(datetime(2026, 6, 3, 9, 0, tzinfo=UTC))
    names = NAMES[language][:3]
    t = await open_table(api, sqlite_url, [language] * 3, [False] * 3, names=names,
                         clock=clock)
    faults: list[str] = []
    try:
        for _ in range(2):
            await play_one(t)
        game = await current(t)
        late = mover_of(t, game)
        message = await group_turn(t, late, game.version)
        before = len(pings(api, language))
        clock.advance(3601)
        await wait_for(lambda: any(e.kind == "send" and e.chat_id == GROUP
                                   and "⏰" in (e.text or "") for e in api.log), timeout=20)
        await api.settle(quiet=0.3)
        game = await current(t)
        nxt = mover_of(t, game)
        eph = live(api, late)
        if eph is not None and moves(api, eph) and nxt is not late:
            faults.append("the timed-out player's 🎴 message keeps move buttons")
        if message.is_ephemeral and not message.deleted and moves(api, message) and \
                nxt is not late:
            faults.append("the pressed message keeps move buttons")
        if any(plain(m.text).startswith(late.first_name) for m in
               pings(api, language, alive=True)) and nxt is not late:
            faults.append("the timed-out player's ping stays")
        new = pings(api, language)[before:]
        named = [m for m in new if plain(m.text).startswith(nxt.first_name)]
        if len(named) != 1:
            faults.append(f"after the timeout {nxt.first_name} was pinged {len(named)} "
                          f"times")
        # on to their next turn: pinged again (README: even when it comes straight back)
        for _ in range(12):
            game = await current(t)
            if mover_of(t, game) is late:
                break
            await play_one(t)
        game = await current(t)
        if mover_of(t, game) is late:
            alive = pings(api, language, alive=True)
            if not any(plain(m.text).startswith(late.first_name) for m in alive):
                faults.append("back to the timed-out player: no ping")
        answer = await api.wait_answer(await late.press_raw(
            GROUP, table_message(api).message_id, peek_button(api, table_message(api))))
        if answer.get("show_alert"):
            faults.append(f"🎴 after a timeout: {answer!r}")
        faults += [str(f) for f in log_faults(api.log, {GROUP: language},
                                              {n: language for n in names}, tuple(names))]
        assert not faults, faults
    finally:
        await t.runner.stop()
