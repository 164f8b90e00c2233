"""/notify, /leave and Koira's phase 2 as Korean and Spanish players meet them, through the
real Application against the fake Bot API on PostgreSQL: a subscriber whose Telegram app
sends no language reads the alert in the group's language, a word after /notify that is not
"off" changes nothing, and the start of Koira's phase 2 after a /leave names only the
players still in the game."""

from __future__ import annotations

import pytest

from tests.e2e.group_play_common import fake_api, tr  # noqa: F401 (the api fixture)
from tests.e2e.harness import BotRunner, bot_table, open_lobby, wait_for
from tests.e2e.koira_play import koira_turn_by, service_of
from tests.fakebot import FakeBotAPI, FakeUser

GROUP = -100889101


async def _group_language(api: FakeBotAPI, admin: FakeUser, language: str) -> None:
    """The group's admin sets its language with /settings and the bot answers."""
    before = len(api.bot_messages(GROUP))
    await admin.send(GROUP, f"/settings language {language}")
    await wait_for(lambda: len(api.bot_messages(GROUP)) > before)
    await api.settle(quiet=0.05)


async def _answer_to(api: FakeBotAPI, user: FakeUser, text: str) -> str:
    """``user`` sends ``text`` in the group: the bot's answer there."""
    before = len(api.bot_messages(GROUP))
    await user.send(GROUP, text)
    await wait_for(lambda: len(api.bot_messages(GROUP)) > before)
    await api.settle(quiet=0.05)
    return api.bot_messages(GROUP)[-1].text or ""


def _lobby(api: FakeBotAPI):
    """The group's lobby message (the one with ✋ Join), in any language."""
    found = [m for m in api.bot_messages(GROUP)
             if any(d and d.startswith("j:") for _t, d in api.buttons(m))]
    return found[-1] if found else None


def _button(api: FakeBotAPI, verb: str) -> str:
    """The data of the lobby's button of ``verb`` (``j:`` join, ``s:`` start)."""
    return next(d for _t, d in api.buttons(_lobby(api)) if d and d.startswith(verb))


@pytest.mark.parametrize("language", ["es", "ko"])
async def test_an_alert_to_a_subscriber_whose_app_sends_no_language_is_in_the_groups(
        api: FakeBotAPI, pg_db, pg_url: str, language: str) -> None:
    """Before the fix Dani, whose Telegram app tells the bot no language, asked a Spanish
    (or Korean) group for /notify and was answered in the group's language, but the private
    alert of its next lobby ("🔔 A new game of Coyote (classic) is open: tap below to join
    it", its ✋ Join button too) came in English: ``alert_subscribers`` rendered it in the
    subscriber's stored language, ``None`` → English, where README says that what is for a
    player alone is in the group's language when their app tells none (as the answer to
    the alert's link, "You are all set for game #1", already is)."""
    api.add_group(GROUP, "Noche de Coyote", admins=[1])
    ana = api.add_user(1, "Ana", language_code=language)
    dani = api.add_user(2, "Dani", language_code=None)
    runner = BotRunner(api, pg_url)
    try:
        for user in (ana, dani):
            await user.start_bot()
        await runner.start()
        await wait_for(lambda: all(api.bot_messages(u.id) for u in (ana, dani)))
        await _group_language(api, ana, language)
        said = await _answer_to(api, dani, "/notify")
        assert tr(language, "I will tell you in our private chat when the next game opens "
                            "here. /notify off stops it.") in said, said

        private = len(api.bot_messages(dani.id))
        await ana.send(GROUP, "/newgame")
        await wait_for(lambda: len(api.bot_messages(dani.id)) > private)
        await api.settle(quiet=0.05)
        alert = api.bot_messages(dani.id)[-1]
        opening = tr(language, "🔔 A new game of {game} is open: tap below to join it. "
                               "/notify off stops these messages.").split("{game}")[0]
        assert opening in (alert.text or ""), alert.text
        assert [t for t, _ in api.buttons(alert)] == [
            tr(language, "✋ Join game #{id}").format(id=1)]
    finally:
        await runner.stop()


async def test_a_word_after_notify_that_is_not_off_subscribes_no_one(
        api: FakeBotAPI, pg_db, pg_url: str) -> None:
    """Before the fix any word after /notify but off, stop and no subscribed its sender: a
    Korean player who typed "/notify 끄기" ("turn off") to make sure the alerts were off, or
    an English one who typed "/notify of", was answered "I will tell you in our private chat
    when the next game opens here" and got the alerts they meant to refuse (``/confirm``
    with an unknown word changes nothing). Now the word is refused with the two forms
    README names, and nothing changes."""
    api.add_group(GROUP, "모임", admins=[1])
    minji = api.add_user(1, "민지", language_code="ko")
    jiwoo = api.add_user(2, "지우", language_code="ko")
    runner = BotRunner(api, pg_url)
    try:
        for user in (minji, jiwoo):
            await user.start_bot()
        await runner.start()
        await wait_for(lambda: all(api.bot_messages(u.id) for u in (minji, jiwoo)))
        await _group_language(api, minji, "ko")
        for typed in ("/notify 끄기", "/notify of"):
            said = await _answer_to(api, jiwoo, typed)
            assert not await service_of(runner).subscribed(GROUP, jiwoo.id), (typed, said)
            assert "/notify off" in said and tr("ko", "I will tell you in our private chat "
                                                      "when the next game opens here. /notify "
                                                      "off stops it.") not in said, said
        said = await _answer_to(api, jiwoo, "/notify")  # (the command itself still works)
        assert await service_of(runner).subscribed(GROUP, jiwoo.id), said
    finally:
        await runner.stop()


async def test_phase_two_names_only_the_players_still_in_the_game(pg_db, pg_url) -> None:
    """Before the fix, when Koira's phase 2 began after Eva had left in phase 1, the
    group's note said "🔁 Phase 2: everyone takes up the cards they won (Ana 7, Bob 12, Cat
    14, Eva 0)": Eva, who is out of the game (the table below it says "left the game"),
    was listed as taking up no cards, as a player who won nothing and plays on with an
    empty hand (R9) is. The note now lists only those still in the game."""
    async with bot_table(pg_url, GROUP, "Dog night", ["Ann", "Bob", "Cat", "Eva"]) as (
            api, players, runner):
        service_of(runner).new_seed = lambda: 7
        lobby = await open_lobby(api, players, GROUP, "/newgame koira")
        await players[0].press_and_settle(api.get_message(GROUP, lobby.message_id),
                                          "▶️ Start")
        await koira_turn_by(api, runner, players, GROUP)
        eva = players[3]
        await eva.send(GROUP, "/leave")
        await wait_for(lambda: bool(api.find_messages(GROUP, "leaves the game")))
        await api.settle(quiet=0.1)
        staying = players[:3]
        for _turn in range(300):
            game = await service_of(runner).get(1)
            if game.status != "running" or game.state["phase"] == 2:
                break
            await koira_turn_by(api, runner, staying, GROUP)
        assert (await service_of(runner).get(1)).state["phase"] == 2
        await api.settle(quiet=0.1)
        note = api.find_messages(GROUP, "Phase 2")[-1].text or ""
        counts = note.split("cards they won (", 1)[1].split(")", 1)[0]
        assert "Eva" not in counts, counts
        assert all(u.first_name in counts for u in staying), counts
