"""Koira played from the group, for its tests: the table, turns by 🎴, pings and the checks."""

from __future__ import annotations

from dataclasses import dataclass, field

from tests.e2e.group_play_common import current, tr
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
from tests.e2e.messy_telegram_helpers import plain
from tests.fakebot import FakeBotAPI, FakeUser, StoredMessage

GROUP = -100771
SEED = 20260603


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


def mover_of(t: Table, game) -> FakeUser:
    uid = game.at_seat(KOIRA.current_seat(game.state)).user_id
    return next(u for u in t.players if u.id == uid)
