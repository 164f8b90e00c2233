"""One player (Ann, who reads Spanish) in several games at once — Coyote in a Korean group
whose title holds markup, Koira in a Japanese group with a right-to-left title, Coyote in a
Spanish forum's topic — with Bob and Cat, playing from the groups: reminders of one game
while she plays another from the group (🎴), /confirm off, the headings that tell two topics
of one forum apart, and /leave during a tournament. Where a test once failed, its docstring
says what the bot did before the fix."""

from __future__ import annotations

from league.store.snapshots import UserRef
from tests.e2e.harness import BotRunner, wait_for
from tests.e2e.koira_play import carry_out, computer_choice, service_of
from tests.e2e.messy_telegram_helpers import plain
from tests.e2e.several_games_helpers import (
    TITLES,
    TOPIC,
    A,
    B,
    C,
    _out_of_one,
    assert_in_their_languages,
    heading,
    ids_of,
    keyboards_of,
    lowest_bid,
    new_messages,
    until,
    world_fixture,  # noqa: F401 (a fixture)
)
from tests.e2e.test_koira_with_coyote import turn_message
from tests.e2e.test_many_games import (
    data_of,
    open_game,
    others_move_until,
    reply,
    to_act,
    version,
)
from tests.fakebot import FakeBotAPI, FakeUser, StoredMessage


# --- a reminder of one game while she plays the other from the group -----------------------
async def test_reminder_of_one_game_while_she_plays_the_other_with_my_cards(world) -> None:
    """What held: it is Ann's turn in Coyote #1 and Koira #2; both reminders come (group and
    private, her ⏳ in Spanish). She plays Koira #2 from its group with 🎴 (an ephemeral
    message): #2's private ⏳ goes with her turn, #1's stays with its buttons. Her number
    replying to #1's reminder is bid in #1 only."""
    api, (ann, bob, cat), clock, runner, db = world
    service = service_of(runner)
    g1 = await open_game(api, ann, [bob, cat], A, "/newgame")
    g2 = await open_game(api, bob, [ann, cat], B, "/newgame koira")
    await others_move_until(api, runner, [ann, bob, cat], (g1, g2), {g1: True, g2: True})
    clock.advance(46 * 60)
    await wait_for(lambda: len([m for m in api.bot_messages(ann.id)
                                if "⏳" in plain(m.text)]) == 2)
    await api.settle(quiet=0.2)
    reminders = {g: [m for m in keyboards_of(api, ann, g) if "⏳" in plain(m.text)]
                 for g in (g1, g2)}
    assert all(len(r) == 1 for r in reminders.values()), reminders
    assert plain(reminders[g1][0].text).startswith(heading(A) + "\n⏳")
    assert plain(reminders[g2][0].text).startswith(heading(B) + "\n⏳")

    table = next(m for m in reversed(api.bot_messages(B)) if data_of(api, m, "p"))
    query = await ann.press(table, data_of(api, table, "p") or "")
    await api.wait_answer(query)
    await wait_for(lambda: bool(api.ephemeral_messages(B, ann.id)))
    await api.settle(quiet=0.1)
    mine = api.ephemeral_messages(B, ann.id)[-1]
    assert "Koira #2 · fase" in plain(mine.text), mine.text  # (hers: in Spanish)
    game = await service.get(g2)
    seat = game.player(ann.id).seat
    answer, _ = await carry_out(api, ann, mine, game, computer_choice(game, seat))
    assert not answer.get("show_alert"), answer
    await api.settle(quiet=0.3)
    assert await version(runner, g2) > game.version
    if await to_act(runner, g2) != ann.id:
        assert not keyboards_of(api, ann, g2), "Koira #2's private keyboard outlived her turn"
        assert not any("⏳" in plain(m.text) and plain(m.text).startswith(heading(B))
                       for m in api.bot_messages(ann.id)), "#2's reminder outlived her turn"
    still = keyboards_of(api, ann, g1)
    assert len(still) == 1 and "⏳" in plain(still[0].text), [plain(m.text) for m in still]

    before1, before2 = await version(runner, g1), await version(runner, g2)
    reply(api, ann, still[0], str(lowest_bid(api, still[0])))
    await until(_moved(runner, g1, before1))
    await api.settle(quiet=0.2)
    assert await version(runner, g2) == before2
    assert not any("⏳" in plain(m.text) and plain(m.text).startswith(heading(A))
                   for m in api.bot_messages(ann.id)), "#1's reminder outlived her turn"
    assert_in_their_languages(api, ann)


def _moved(runner: BotRunner, game_id: int, before: int):
    async def check() -> bool:
        return await version(runner, game_id) > before
    return check


# --- /confirm off, for both games -------------------------------------------------------------
async def _to_a_callable_turn(api: FakeBotAPI, runner: BotRunner, users: dict[int, FakeUser],
                              ann: FakeUser, game_id: int) -> StoredMessage:
    """Moves in game ``game_id`` until it is Ann's turn with 🐺 Coyote! on her keyboard."""
    service = service_of(runner)
    for _ in range(30):
        await others_move_until(api, runner, list(users.values()), (game_id,),
                                {game_id: True})
        game = await service.get(game_id)
        await wait_for(lambda v=game.version: turn_message(api, ann, game_id, v) is not None)
        message = turn_message(api, ann, game_id, game.version)
        assert message is not None
        if any(d and d.split(":")[0] in ("c", "cc") for _, d in api.buttons(message)):
            return message
        data = next(d for _, d in api.buttons(message) if d and d.startswith("b:"))
        assert not (await ann.press_and_settle(message, data, quiet=0.05)).get("show_alert")
    raise AssertionError("no callable turn")


async def test_confirm_off_applies_to_both_games(world) -> None:
    """What held: Ann is to act in Coyote #1 (Korean group) and Coyote #2 (a topic of the
    Spanish forum), each keyboard's 🐺 asking "Yes" first. /confirm off in the private chat:
    the 🐺 drawn before calls at once in #1; /start redraws #2, whose 🐺 now calls at once
    too."""
    api, (ann, bob, cat), clock, runner, db = world
    service = service_of(runner)
    users = {u.id: u for u in (ann, bob, cat)}
    topic = api.create_topic(C, TOPIC, ann)
    await api.settle(quiet=0.05)
    g1 = await open_game(api, ann, [bob, cat], A, "/newgame")
    g2 = await open_game(api, bob, [ann, cat], C, "/newgame", thread=topic)
    first = await _to_a_callable_turn(api, runner, users, ann, g1)
    second = await _to_a_callable_turn(api, runner, users, ann, g2)
    first = api.get_message(ann.id, first.message_id)
    assert first is not None and data_of(api, first, "cc") and data_of(api, second, "cc")
    assert plain(second.text).startswith(heading(C, TOPIC) + "\n"), second.text
    seen = len(api.bot_messages(ann.id))
    await ann.send(ann.id, "/confirm off")
    await wait_for(lambda: len(api.bot_messages(ann.id)) > seen)
    assert "/confirm on" in plain(api.bot_messages(ann.id)[-1].text)
    before = await version(runner, g1)
    answer = await ann.press_and_settle(first, data_of(api, first, "cc") or "", quiet=0.1)
    assert not answer.get("show_alert"), answer
    await until(_moved(runner, g1, before))
    seen = ids_of(api, ann)
    await ann.start_bot()
    game = await service.get(g2)
    await wait_for(lambda: any(data_of(api, m, "c") for m in new_messages(api, ann, seen)))
    await api.settle(quiet=0.2)
    fresh = [m for m in keyboards_of(api, ann, g2)]
    assert len(fresh) == 1 and data_of(api, fresh[0], "c") and not data_of(api, fresh[0], "cc")
    answer = await ann.press_and_settle(fresh[0], data_of(api, fresh[0], "c") or "",
                                        quiet=0.1)
    assert not answer.get("show_alert"), answer
    await until(_moved(runner, g2, game.version))
    await api.settle(quiet=0.1)
    assert_in_their_languages(api, ann)


# --- headings of two topics of one forum ------------------------------------------------------
LONG_FORUM = -1009440


async def test_two_topics_with_long_names_have_headings_that_tell_them_apart(world) -> None:
    """Ann plays Coyote in two topics of one forum, "Coyote table one" and "Coyote table
    two", in a forum titled "Friday night card players club". Every private message is
    headed by the group and topic so that "a player seated in games of several groups must
    tell at a glance which buttons act where" (telegram_app/render/place.py). Before the
    fix both headings read "👥 Friday night card … › Coyote tabl…": the topic's name was cut
    to 12 characters while the group's title kept 19, so the part that tells the games apart
    was cut off (only the game number in the next line differed)."""
    api, (ann, bob, cat), clock, runner, db = world
    api.add_group(LONG_FORUM, "Friday night card players club", type="supergroup",
                  is_forum=True, admins=[1])
    one = api.create_topic(LONG_FORUM, "Coyote table one", ann)
    two = api.create_topic(LONG_FORUM, "Coyote table two", ann)
    await api.settle(quiet=0.05)
    g1 = await open_game(api, ann, [bob, cat], LONG_FORUM, "/newgame", thread=one)
    g2 = await open_game(api, bob, [ann, cat], LONG_FORUM, "/newgame", thread=two)
    await wait_for(lambda: all(_about(api, ann, g) for g in (g1, g2)))
    await api.settle(quiet=0.1)
    lines = {g: plain(_about(api, ann, g)[-1].text).splitlines()[0] for g in (g1, g2)}
    assert lines[g1] != lines[g2], (
        "two games' private messages carry the same heading", lines)


def _about(api: FakeBotAPI, user: FakeUser, game_id: int) -> list[StoredMessage]:
    return [m for m in api.bot_messages(user.id) if f"#{game_id} ·" in plain(m.text)]


# --- /leave in a plain group during a tournament ----------------------------------------------
async def test_leave_during_a_tournament_with_a_game_beside_the_table(world) -> None:
    """Ann sits at a Coyote tournament table in the plain group "<b>Ops & Co</b>" and plays
    an ordinary Coyote game there too (the tables run beside the group's game). README's
    commands table: /leave quits "during a tournament, your table (if you also play the
    topic's own game, that game first: send it again for the table)". Her first /leave
    quits the ordinary game, her second the table. (The review found the first /leave
    quitting the ordinary game while README named only the table: README now says so.)"""
    api, (ann, bob, cat), clock, runner, db = world
    service = service_of(runner)
    people = [UserRef(u.id, u.first_name, language=u.language_code) for u in (ann, bob, cat)]
    cup = await service.open_tournament(A, TITLES[A], 0, people[0], "coyote")
    for person in people[1:]:
        cup = await service.join_tournament(cup.id, person)
    cup = await service.start_tournament(cup.id, ann.id, is_admin=True, version=cup.version)
    table = cup.tables_of(1)[0].game_id
    await wait_for(lambda: any(f"#{table}" in plain(m.text) for m in api.bot_messages(ann.id)))
    await api.settle(quiet=0.2)
    game = await open_game(api, ann, [bob, cat], A, "/newgame")
    assert (await service.get(table)).status == (await service.get(game)).status == "running"
    await ann.send(A, "/leave")
    await until(_out_of_one(service, ann.id, (table, game)))
    await api.settle(quiet=0.2)
    left = {g: not (await service.get(g)).player(ann.id).playing for g in (table, game)}
    assert left == {table: False, game: True}, (
        f"the first /leave in tournament #{cup.id} should quit game #{game} first", left)
    await ann.send(A, "/leave")

    async def out_of_both() -> bool:
        return all([not (await service.get(g)).player(ann.id).playing for g in (table, game)])
    await until(out_of_both)


