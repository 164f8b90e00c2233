"""Coyote played from the group, for its tests: the table, reading it, and what is checked."""

from __future__ import annotations

from dataclasses import dataclass, field

from engine import GAMES
from tests.e2e.group_play_common import tr
from tests.e2e.harness import MOVE_VERBS, BotRunner, wait_for
from tests.e2e.koira_play import service_of
from tests.e2e.messy_telegram_helpers import plain
from tests.english_check import log_faults
from tests.fakebot import FakeBotAPI, FakeUser, StoredMessage

GROUP = -100881
COYOTE = GAMES["coyote"]
SPECIAL_CODES = {"pass": 1, "double": 2, "reverse": 3, "draw1": 4, "change": 5, "shot": 6,
                 "extra": 7, "skip": 8, "swap": 9, "guess": 10}
CODE_NAMES = {v: k for k, v in SPECIAL_CODES.items()}
NAMES = {"es": ["Lucía", "Mateo", "Sofía", "Diego", "Elena"],
         "en": ["Ann", "Bob", "Cat", "Dan", "Eve"]}


def version_of(api: FakeBotAPI, message: StoredMessage | None) -> int | None:
    if message is None:
        return None
    for _label, data in api.buttons(message):
        if data and data.split(":")[0] in MOVE_VERBS:
            return int(data.split(":")[2])
    return None


def move_buttons(api: FakeBotAPI, message: StoredMessage | None) -> list[tuple[str, str]]:
    if message is None:
        return []
    return [(plain(t), d) for t, d in api.buttons(message)
            if d and d.split(":")[0] in MOVE_VERBS]


def peek_data(api: FakeBotAPI, message: StoredMessage) -> str | None:
    return next((d for _t, d in api.buttons(message) if d and d.startswith("p:")), None)


def table_message(api: FakeBotAPI) -> StoredMessage | None:
    tables = [m for m in api.bot_messages(GROUP) if m.receiver_id is None and peek_data(api, m)]
    return tables[-1] if tables else None


def live(api: FakeBotAPI, user: FakeUser) -> StoredMessage | None:
    found = api.ephemeral_messages(GROUP, user.id)
    return found[-1] if found else None


def refetch(api: FakeBotAPI, message: StoredMessage) -> StoredMessage | None:
    if message.is_ephemeral:
        return api.get_ephemeral(message.chat_id, message.ephemeral_id or 0)
    return api.get_message(message.chat_id, message.message_id)


@dataclass
class Table:
    api: FakeBotAPI
    runner: BotRunner
    players: list[FakeUser]
    group_only: set[int]
    language: str
    game_id: int = 0
    faults: list[str] = field(default_factory=list)
    used: dict[str, int] = field(default_factory=dict)
    offered: set[str] = field(default_factory=set)
    turns: int = 0
    last_human: int | None = None

    def user(self, user_id: int | None) -> FakeUser | None:
        return next((u for u in self.players if u.id == user_id), None)


async def open_table(api: FakeBotAPI, url: str, language: str, started: list[bool], *,
                     command: str, specials: bool = False, ai: int = 0, seed: int = 7,
                     lives_presses: int = 0) -> Table:
    api.add_group(GROUP, "Noche de coyotes" if language == "es" else "Coyote night",
                  admins=[1])
    names = NAMES[language][:len(started)]
    players = [api.add_user(i, n, language_code=language) for i, n in enumerate(names, 1)]
    for user, s in zip(players, started, strict=True):
        if s:
            await user.start_bot()
    runner = BotRunner(api, url)
    await runner.start()
    service_of(runner).new_seed = lambda: seed
    host = players[0]
    await host.send(GROUP, command)

    def lobby() -> StoredMessage | None:
        found = [m for m in api.bot_messages(GROUP)
                 if any(d and d.startswith("j:") for _t, d in api.buttons(m))]
        return found[-1] if found else None

    await wait_for(lambda: lobby() is not None)
    await api.settle(quiet=0.05)
    join = next(d for _t, d in api.buttons(lobby()) if d.startswith("j:"))
    for user in players[1:]:
        answer = await user.press_and_settle(lobby(), join, quiet=0.02)
        assert not answer.get("show_alert"), answer
    if specials:
        data = next(d for t, d in api.buttons(lobby()) if "🎭" in t or "🪙" in t)
        await host.press_and_settle(lobby(), data, quiet=0.02)
    for _n in range(lives_presses):
        data = next(d for t, d in api.buttons(lobby()) if "❤️" in t)
        await host.press_and_settle(lobby(), data, quiet=0.02)
    for _n in range(ai):
        data = next(d for _t, d in api.buttons(lobby()) if d and d.startswith("a:"))
        await host.press_and_settle(lobby(), data, quiet=0.02)
    start = next(d for _t, d in api.buttons(lobby()) if d and d.startswith("s:"))
    answer = await host.press_and_settle(lobby(), start, quiet=0.05)
    assert not answer.get("show_alert"), answer
    await wait_for(lambda: table_message(api) is not None)
    await api.settle(quiet=0.05)
    game_id = int(peek_data(api, table_message(api)).split(":")[1])
    return Table(api, runner, players, {u.id for u, s in zip(players, started, strict=True)
                                        if not s}, language, game_id)


def private_turn(api: FakeBotAPI, user: FakeUser, version: int) -> StoredMessage | None:
    messages = api.bot_messages(user.id)
    if messages and version_of(api, messages[-1]) == version:
        return messages[-1]
    return None


async def turn_message(t: Table, user: FakeUser, version: int) -> StoredMessage:
    """The message with ``user``'s move buttons at ``version``: their private one, else their
    ephemeral one (edited in, or a new one by 🎴)."""
    api = t.api
    if user.id not in t.group_only:
        await wait_for(lambda: private_turn(api, user, version) is not None, timeout=10)
        return private_turn(api, user, version)  # type: ignore[return-value]

    def ready() -> StoredMessage | None:
        m = live(api, user)
        return m if version_of(api, m) == version else None

    if ready() is None:
        table = table_message(api)
        assert table is not None
        answer = await user.press_and_settle(table, peek_data(api, table), quiet=0.02)
        if answer.get("show_alert") or answer.get("text"):
            t.faults.append(f"🎴 on one's turn answered {answer!r}")
        await wait_for(lambda: ready() is not None, timeout=15)
    return ready()  # type: ignore[return-value]


def expected_specials(game, seat: int) -> set[str]:
    """The special actions the rules allow ``seat`` now (engine's legal actions)."""
    return {a.special for a in COYOTE.legal_actions(game.state, seat) if a.special}


def offered_specials(api: FakeBotAPI, message: StoredMessage) -> set[str]:
    found = set()
    for _t, data in move_buttons(api, message):
        parts = data.split(":")
        if parts[0] in ("x", "k"):
            found.add(CODE_NAMES[int(parts[3])])
        elif parts[0] == "g":
            found.add("guess")
    return found


def own_card_faults(t: Table, game, user: FakeUser, message: StoredMessage) -> list[str]:
    """The view of ``user`` must not show their own card: their line says ❓ (yours)."""
    yours = plain(tr(t.language, "❓ (yours)"))
    seat = game.player(user.id).seat
    view = COYOTE.view(game.state, seat)
    if not view["in_play"][seat]:
        return []
    lines = [line for line in plain(message.text).splitlines() if user.first_name in line
             and ("❤" in line or "🂠" in line or "·" in line)]
    faults = []
    if not lines or yours not in lines[0]:
        faults.append(f"v{game.version}: {user.first_name}'s view: own line {lines[:1]!r}")
    card = (game.state["hands"][seat] or [None])[0] if isinstance(
        game.state["hands"][seat], list) else game.state["hands"][seat]
    if lines and card is not None and f"· {card}" in lines[0].split(yours)[0]:
        faults.append(f"v{game.version}: {user.first_name} sees their own card {card}")
    return faults


def off_turn_faults(t: Table, game, mover: FakeUser | None) -> list[str]:
    faults = []
    for other in t.players:
        if other is mover:
            continue
        eph = live(t.api, other)
        if move_buttons(t.api, eph):
            faults.append(f"v{game.version}: {other.first_name}'s ephemeral message keeps "
                          f"move buttons off-turn: {move_buttons(t.api, eph)[:2]}")
        if other.id not in t.group_only:
            stale = [m for m in t.api.bot_messages(other.id) if move_buttons(t.api, m)
                     and version_of(t.api, m) != game.version]
            if stale and game.player(other.id) is not None and mover is not None:
                pass  # (the message economy: a mover's message may stay until their next turn)
    return faults


def ping_tail(language: str) -> str:
    return plain(tr(language, "{name}, your turn: 🎴 on the table shows your cards and "
                              "moves.")).split("{name}")[1]


def pings(t: Table, *, alive: bool) -> list[StoredMessage]:
    tail = ping_tail(t.language)
    return [m for m in t.api.messages(GROUP, include_deleted=not alive)
            if m.from_bot and m.receiver_id is None and tail in plain(m.text)
            and not (alive and m.deleted)]


def ping_faults(t: Table, game, mover: FakeUser) -> list[str]:
    faults = []
    alive = pings(t, alive=True)
    if len(alive) > 1:
        faults.append(f"v{game.version}: {len(alive)} live pings {[m.text for m in alive]}")
    for m in alive:
        if not plain(m.text).startswith(mover.first_name):
            faults.append(f"v{game.version}: a live ping names another: {m.text}")
    opens = plain(tr(t.language, "{name} opens the round.")).replace("{name}", mover.first_name)
    table = table_message(t.api)
    named_by_table = table is not None and (opens in plain(table.text) or any(
        e.get("type") == "text_mention" and (e.get("user") or {}).get("id") == mover.id
        for e in table.entities))  # (a new table's mention of the player to act)
    if mover.id in t.group_only and not alive and not named_by_table:
        tail = plain(table.text).splitlines()[-6:-3] if table is not None else []
        faults.append(f"v{game.version}: {mover.first_name} (no private chat) is to act "
                      f"and is not pinged; the table ends {tail}")
        if t.last_human == mover.id:  # (the turn came back through computer players)
            faults[-1] = faults[-1].replace("is not pinged", "is not pinged (came back)")
    if mover.id not in t.group_only and alive:
        faults.append(f"v{game.version}: {mover.first_name} has a private chat but is "
                      f"pinged in the group")
    return faults


def table_faults(t: Table, game) -> list[str]:
    """The group's table shows no hidden card: no seat line lists a card unless face up."""
    table = table_message(t.api)
    if table is None:
        return []
    faceup = plain(tr(t.language, "<b>{card}</b> face up")).replace("<b>", "").replace(
        "</b>", "").replace("{card}", "").strip()
    faults = []
    for line in plain(table.text).splitlines():
        if any(u.first_name in line for u in t.players) and "·" in line \
                and ("❤" in line or "🂠" in line) and faceup not in line \
                and line.split("·", 1)[1].strip().strip("❓+ ") != "" \
                and plain(tr(t.language, "(safe)")) not in line:
            faults.append(f"v{game.version}: the group's table shows a card: {line}")
    return faults


def end_faults(t: Table) -> list[str]:
    api = t.api
    faults = []
    left = [m for m in api.ephemeral_messages(GROUP, None, True) if not m.deleted]
    if left:
        faults.append(f"ephemeral messages left after the end: {[m.text[:60] for m in left]}")
    if pings(t, alive=True):
        faults.append("a ping left after the end")
    for m in api.bot_messages(GROUP):
        if m.receiver_id is None and peek_data(api, m):
            faults.append(f"a table still has 🎴 after the end: {m.text[:60]}")
    for u in t.players:
        if u.id in t.group_only and api.bot_messages(u.id):
            faults.append(f"{u.first_name} (no private chat) got a private message")
    return faults


def language_faults(t: Table) -> list[str]:
    names = tuple(u.first_name for u in t.players)
    languages = {GROUP: t.language} | {u.id: t.language for u in t.players}
    if t.language == "en":
        return []
    return [str(f) for f in log_faults(t.api.log, languages,
                                       {n: t.language for n in names}, names)]


def final_faults(t: Table, game) -> list[str]:
    """The game's last group message: every seat placed as the engine placed it, Elo only in
    a rated game (no computer seat), and 🔁 Rematch."""
    api = t.api
    over = plain(tr(t.language, "🏁 Game #{id} is over!")).format(id=game.id)
    last = [m for m in api.bot_messages(GROUP) if over in plain(m.text)]
    if not last:
        return ["no final message"]
    text, faults = plain(last[-1].text), []
    if not any(d and d.startswith("rm:") for _t, d in api.buttons(last[-1])):
        faults.append("the final message has no 🔁 Rematch")
    places = COYOTE.placements(game.state)
    medals = {1: "🥇", 2: "🥈", 3: "🥉"}
    for p in game.seated:
        place = places[p.seat]
        line = next((x for x in text.splitlines() if p.name in x and (
            x.startswith(medals.get(place, f"{place}.")))), None)
        if line is None:
            faults.append(f"{p.name} is not shown at place {place}: {text!r}")
    has_ai = any(p.is_ai for p in game.seated)
    if has_ai and "Elo" in text:
        faults.append("Elo changes shown for a game with a computer seat")
    if not has_ai and "Elo" not in text:
        faults.append("no Elo change in a rated game")
    return faults
