"""Tournaments as an admin tries them, edges included, through the real Application and the
fake Bot API on PostgreSQL: an anonymous admin's /tournament cancel, /rules and admin commands
in a table's forum topic, and the texts in Korean, Japanese and Spanish.

Each test opens its tournament as a group would (``/tournament``, the sign-up message's
buttons) and waits for what it expects; the seeds are fixed."""

from __future__ import annotations

import pytest

from tests.clock import Clock
from tests.e2e.harness import (
    BotRunner,
    bot_table,
    wait_for,
)
from tests.e2e.messy_telegram_helpers import anonymous
from tests.e2e.tournament_edges_helpers import (
    GROUP,
    data_like,
    forum,
    koira_tables_in_topics,
    now,
    open_signup,
    plain,
    round_news,
    service_of,
    signup_of,
    told,
)
from tests.english_check import rendering_faults
from tests.fakebot import FakeBotAPI


# --- an anonymous admin -----------------------------------------------------------------------
async def test_an_anonymous_admin_can_cancel_a_running_tournament(pg_db, pg_url) -> None:
    """README: /cancel ends a game for "an admin", and the bot counts an anonymous admin
    (a message sent as the group) as one for /cancel, /pause and /settings. /tournament
    cancel 1 sent that way must cancel it (cancelling is not playing, nor opening); before
    the fix it was answered "Anonymous admins cannot play: please post as yourself to open a
    tournament." and the tournament ran on."""
    async with bot_table(pg_url, GROUP, "Cup", ["Ann", "Bob", "Cat"],
                         sweep_interval=0.1) as (api, players, runner):
        ann, bob, cat = players
        signup = await open_signup(api, ann, "/tournament coyote", [])
        for user in (bob, cat):
            await user.press_and_settle(now(api, signup), "✋ Join", quiet=0.05)
        await ann.press_and_settle(now(api, signup), "▶️ Start", quiet=0.05)
        await wait_for(lambda: len(round_news(api, 1, 1, 5)) == 1)
        await api.settle(quiet=0.05)
        before = len(api.bot_messages(GROUP))
        anonymous(api, GROUP, "/tournament cancel 1")
        await wait_for(lambda: len(api.bot_messages(GROUP)) > before)
        await api.settle(quiet=0.1)
        answer = plain(api.bot_messages(GROUP)[before].text)
        status = (await service_of(runner).tournament(1)).status
        assert status == "cancelled" and "Tournament #1 was cancelled." in answer, (
            f"an anonymous admin's /tournament cancel 1: {answer!r}; the tournament is "
            f"{status}")


# --- a table's own forum topic ----------------------------------------------------------------
async def test_rules_in_a_koira_tables_topic_explain_koira(pg_db, pg_url) -> None:
    """README: /rules without a game gives "the open game's rules". In a forum each table of
    a Koira tournament has a topic of its own; /rules sent there answered with Coyote's rules
    before the fix (the topic's open game was looked up with tournament tables left out, so
    the default game's rules came)."""
    async with forum(pg_url, ["Ann", "Bob", "Cat"]) as (api, players, runner, home):
        table = await koira_tables_in_topics(api, players, runner, home)
        bob = players[1]
        before = len(api.topic_messages(GROUP, table))
        await bob.send(GROUP, "/rules", table)
        await wait_for(lambda: len(api.topic_messages(GROUP, table)) > before)
        answer = plain(api.topic_messages(GROUP, table)[before].text)
        assert answer.startswith("Koira (3–8 players"), answer[:200]


async def test_admin_commands_in_a_tables_topic_see_its_game(pg_db, pg_url) -> None:
    """The admin sends /pause, then /cancel, in the forum topic of a tournament table whose
    game runs there. README lists both for "the game" of the topic; before the fix the bot
    answered "There is no running game here." and "There is no open game here." while the
    table's game (with its clock) ran in that very topic. Now it says why a tournament table
    cannot be paused or cancelled alone, and names /tournament cancel ID (the whole
    tournament)."""
    async with forum(pg_url, ["Ann", "Bob", "Cat"]) as (api, players, runner, home):
        table = await koira_tables_in_topics(api, players, runner, home)
        ann = players[0]
        answers = {}
        for text in ("/pause", "/cancel"):
            before = len(api.topic_messages(GROUP, table))
            await ann.send(GROUP, text, table)
            await wait_for(lambda b=before: len(api.topic_messages(GROUP, table)) > b)
            await api.settle(quiet=0.05)
            answers[text] = plain(api.topic_messages(GROUP, table)[before].text)
        game = await service_of(runner).get(
            (await service_of(runner).tournament(1)).tables_of(1)[0].game_id)
        assert game.status == "running"
        denials = {t: a for t, a in answers.items() if "There is no" in a}
        assert not denials, f"in the topic of a running table: {denials}"
        assert all("/tournament cancel 1" in a for a in answers.values()), answers


# --- languages ------------------------------------------------------------------------------
@pytest.mark.parametrize("language", ["ko", "ja", "es"])
async def test_a_tournament_leaves_no_english_in_a_groups_language(pg_db, pg_url,
                                                                   language: str) -> None:
    """A group whose players all write in ``language``: the admin opens a Coyote tournament
    (three rounds, two computer players), two friends join (one of them twice), nobody moves:
    the computer finishes the tables at each deadline, all three are no-shows, then
    withdrawn, and the tournament ends early. /tournament, /rules tournament and /history on
    the way. Every text, button and alert the bot sent is in the group's language."""
    clock = Clock()
    async with FakeBotAPI() as api:
        api.add_group(GROUP, "Club", admins=[1])
        names = {"ko": ["민지", "서준", "하나"], "ja": ["さくら", "はると", "ゆい"],
                 "es": ["Ana", "Beto", "Carla"]}[language]
        players = [api.add_user(i, n, language_code=language) for i, n in enumerate(names, 1)]
        ann, bob, cat = players
        for user in players:
            await user.start_bot()
        runner = BotRunner(api, pg_url, clock=clock, sweep_interval=0.1)
        await runner.start()
        try:
            service = service_of(runner)
            service.new_seed = lambda: 5
            await ann.send(GROUP, "/tournament coyote")
            await wait_for(lambda: signup_of(api) is not None)
            await api.settle(quiet=0.05)
            signup = signup_of(api)
            for pattern in (r"to:1:0:4:\d+", r"to:1:0:3:\d+", r"ta:1:\d+", r"ta:1:\d+"):
                query = await ann.press_raw(GROUP, signup.message_id,
                                            data_like(api, now(api, signup), pattern))
                assert not (await api.wait_answer(query)).get("show_alert")
                await api.settle(quiet=0.05)
            for user in (bob, cat, bob):
                await user.press_and_settle(now(api, signup), "tj:1", quiet=0.05)
            await ann.press_and_settle(now(api, signup), data_like(api, now(api, signup),
                                                                   r"ts:1:\d+"), quiet=0.05)
            await told(service, 1, 1)
            for round_ in (1, 2):
                await api.settle(quiet=0.05)
                await cat.send(GROUP, "/tournament")
                await api.settle(quiet=0.05)
                clock.advance(86400 + 1)
                await told(service, 1, round_ + 1)
            await api.settle(quiet=0.1)
            cup = await service.tournament(1)
            assert cup.status == "finished" and cup.round == 2, (cup.status, cup.round)
            await bob.send(GROUP, "/rules tournament")
            await bob.send(GROUP, "/history")
            await api.settle(quiet=0.1)
        finally:
            await runner.stop()
        ai = tuple(e.name for e in cup.entries if e.is_ai)
        faults = []
        for entry in api.log:
            if entry.kind not in ("send", "edit", "answer"):
                continue
            if entry.kind != "answer" and (entry.receiver or entry.chat_id) != GROUP:
                continue
            faults += [(entry.kind, run) for run in rendering_faults(
                entry.text or "", language, (*names, *ai), whole=entry.kind == "answer")]
            faults += [("button", run) for row in entry.buttons for label in row
                       for run in rendering_faults(label, language, (*names, *ai), whole=True)]
        assert len(api.bot_messages(GROUP)) > 10
        assert not any(e.active for e in cup.entries if not e.is_ai)  # (the notes were told)
        assert not faults, faults[:10]
