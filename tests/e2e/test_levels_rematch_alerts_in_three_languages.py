"""Computer levels, 🔁 Rematch and /notify in three languages, through the
real Application and the fake Bot API: a Korean group with a Spanish player (a name in HTML)
and a Japanese one (a right-to-left name) subscribe, set computer levels, play an easy and a
hard computer to the end, rematch, and read /replay and /settings: no English anywhere, the
names as typed."""

from __future__ import annotations

from datetime import UTC, datetime

from tests.clock import Clock
from tests.e2e.harness import BotRunner, labels, wait_for
from tests.e2e.koira_play import service_of
from tests.e2e.table_together_helpers import GROUP, HOWLER, WILE, tap, tr
from tests.english_check import log_faults
from tests.fakebot import FakeBotAPI

BOB_NAME, CAT_NAME = "<b>Bo</b> & <i>co", "\u05e9\u05dc\u05d5\u05dd\u200f"


async def test_a_korean_group_with_levels_rematch_and_alerts_in_three_languages(
        pg_db, pg_url) -> None:
    """A Korean group; Bob (Spanish, a name in HTML) and Cat (Japanese, a right-to-left
    name) subscribe, join, set levels, play an easy and a hard computer to the end and
    rematch: no English in any text, button or alert, every HTML text valid, the names shown
    as typed next to the computers' levels."""
    async with FakeBotAPI() as api:
        api.add_group(GROUP, "코요테의 밤", admins=[1])
        ann = api.add_user(1, "Ann", language_code="ko")
        bob = api.add_user(2, BOB_NAME, language_code="es")
        cat = api.add_user(3, CAT_NAME, language_code="ja")
        for user in (ann, bob, cat):
            await user.start_bot()
        clock = Clock(datetime(2026, 12, 2, 9, 0, tzinfo=UTC))
        runner = BotRunner(api, pg_url, clock=clock)
        await runner.start()
        try:
            service_of(runner).new_seed = lambda: 11
            await ann.send(GROUP, "/settings language ko")
            await api.settle(quiet=0.1)
            for user in (bob, cat):
                await user.send(GROUP, "/notify")
            await api.settle(quiet=0.1)
            await ann.send(GROUP, "/newgame feathers")
            await wait_for(lambda: bool(api.find_messages(bob.id, "🔔")))
            await api.settle(quiet=0.1)
            lobby = next(m for m in api.bot_messages(GROUP) if api.buttons(m)
                         and "#1" in (m.text or ""))
            await bob.press_and_settle(lobby, tr("ko", "✋ Join"), quiet=0.02)
            await cat.press_and_settle(api.get_message(GROUP, lobby.message_id),
                                       tr("ko", "✋ Join"), quiet=0.02)
            add = tr("ko", "🤖 Add AI")
            await tap(api, ann, lobby, add, add)
            wile = tr("ko", "{name}: {level}").format(name=WILE, level=tr("ko", "normal"))
            await tap(api, ann, lobby, wile)
            howler = tr("ko", "{name}: {level}").format(name=HOWLER, level=tr("ko", "normal"))
            await tap(api, ann, lobby, howler)
            howler = tr("ko", "{name}: {level}").format(name=HOWLER, level=tr("ko", "hard"))
            await tap(api, ann, lobby, howler)
            text = api.get_message(GROUP, lobby.message_id).text
            assert "&lt;b&gt;Bo" not in text and BOB_NAME in text, text  # shown as typed
            assert CAT_NAME.rstrip("\u200f") in text
            assert tr("ko", "🤖 {name} ({level})").format(
                name=WILE, level=tr("ko", "hard")) in text, text
            bell = await bob.press_and_settle(api.get_message(GROUP, lobby.message_id),
                                              tr("ko", "🔔 Next games"))
            assert bell.get("show_alert")
            await tap(api, ann, lobby, tr("ko", "▶️ Start"))
            over = tr("ko", "🏁 Game #{id} is over!").format(id=1)
            turns = 0
            while (await service_of(runner).get(1)).status == "running":
                assert await play_turn_in(api, [ann, bob, cat], over), "nobody can act"
                turns += 1
                assert turns < 800
            await api.settle(quiet=0.1)
            final = api.bot_messages(GROUP)[-1]
            assert labels(api, final) == [tr("ko", "🔁 Rematch")], labels(api, final)
            await cat.press_and_settle(final, tr("ko", "🔁 Rematch"))
            await bob.press_and_settle(final, tr("ko", "🔁 Rematch"))
            await bob.press_and_settle(final, tr("ko", "🔁 Rematch"))  # a double tap
            for command in ("/replay 1", "/settings", "/notify", "/notify off"):
                await ann.send(GROUP, command)
                await api.settle(quiet=0.2)
            panel = api.bot_messages(GROUP)[-3]
            stand_in = tr("ko", "🤖 Stand-in level: {value}").format(value=tr("ko", "normal"))
            assert stand_in in labels(api, panel), labels(api, panel)
            await ann.press_and_settle(panel, stand_in)
            again = await service_of(runner).get(2)
            assert {p.user_id for p in again.players if not p.is_ai} == {bob.id, cat.id}
            languages = {GROUP: "ko", ann.id: "ko", bob.id: "es", cat.id: "ja"}
            actors = {"Ann": "ko", BOB_NAME: "es", CAT_NAME: "ja"}
            names = ("Ann", BOB_NAME, CAT_NAME, "Bo", "co", "Wile", "Howler",
                     CAT_NAME.rstrip("\u200f"))
            faults = log_faults(api.log, languages, actors, names)
            assert not faults, faults[:20]
        finally:
            await runner.stop()


async def play_turn_in(api: FakeBotAPI, players, over: str) -> bool:
    """:func:`play_turn` for a group whose end message is ``over`` (not in English)."""
    from tests.e2e import harness

    def ended() -> bool:
        return bool(api.find_messages(GROUP, over))

    if ended():
        return False
    offers = [(harness.move_version(api, m) or 0, u, m) for u in players
              if (m := harness.private_turn_message(api, u)) is not None]
    if not offers:
        try:
            await wait_for(lambda: any(harness.private_turn_message(api, u) for u in players)
                           or ended(), timeout=15)
        except TimeoutError:
            return False
        return True
    _, user, message = max(offers, key=lambda offer: offer[0])
    pressed = harness.move_version(api, message) or 0
    answer = await harness.press_move(api, user, message, harness.choose(api, message),
                                      quiet=0.02)  # (🐺 Coyote! asks first: then "Yes")
    assert not answer.get("show_alert"), answer
    await wait_for(lambda: any(harness.private_turn_message(api, u, pressed) for u in players)
                   or ended())
    return True
