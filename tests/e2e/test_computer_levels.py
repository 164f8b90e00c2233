"""Computer levels: forged level, 🔔 and 🔁 presses, the stand-in level setting, a full table."""

from __future__ import annotations

from tests.e2e.harness import labels, wait_for
from tests.e2e.koira_play import service_of
from tests.e2e.table_together_helpers import (
    GROUP,
    WILE,
    coyote_to_the_end,
    new_lobby,
    table_fixture,  # noqa: F401 (a fixture)
    tap,
)


async def test_forged_level_bell_and_rematch_presses_change_nothing(table) -> None:
    """Forged ``v``, ``n`` and ``rm`` data: another computer's index, a level past the
    game's, a press by a guest, an old version, a lobby's 🔁, a 🔔 of a game that does not
    exist or pressed in a private chat: each an alert, the lobby unchanged."""
    api, (ann, bob, _cat), _clock, runner = table
    lobby = await new_lobby(api, ann, "/newgame")
    await tap(api, bob, lobby, "✋ Join")
    await tap(api, ann, lobby, "🤖 Add AI")
    game = await service_of(runner).get(1)
    v = game.version
    said = len(api.bot_messages(GROUP))
    mine = api.bot_messages(ann.id)[-1] if api.bot_messages(ann.id) else None
    forged = [(ann, GROUP, lobby.message_id, f"v:1:1:2:{v}"),  # no second computer
              (ann, GROUP, lobby.message_id, f"v:1:0:3:{v}"),  # no fourth level
              (ann, GROUP, lobby.message_id, f"v:1:0:2:{v - 1}"),  # an old version
              (bob, GROUP, lobby.message_id, f"v:1:0:2:{v}"),  # not the host
              (ann, GROUP, lobby.message_id, "v:2:0:2:1"),  # no such game
              (ann, GROUP, lobby.message_id, "rm:1"),  # the lobby is not finished
              (ann, GROUP, lobby.message_id, "n:99"),  # no such game
              (ann, GROUP, lobby.message_id, "rm:99")]
    if mine is not None:  # a lobby's button pressed in a private chat
        forged += [(ann, ann.id, mine.message_id, "n:1"), (ann, ann.id, mine.message_id,
                                                           f"v:1:0:2:{v}")]
    for who, chat, message_id, data in forged:
        answer = await api.wait_answer(await who.press_raw(chat, message_id, data))
        assert answer.get("show_alert"), (data, answer)
    await api.settle(quiet=0.1)
    after = await service_of(runner).get(1)
    assert after.version == v and [p.level for p in after.players] == [None, None, "normal"]
    assert not await service_of(runner).subscribed(GROUP, ann.id)
    assert len(api.bot_messages(GROUP)) == said
    # a double tap on a level button changes the level once
    data = next(d for t, d in api.buttons(api.get_message(GROUP, lobby.message_id))
                if t.startswith(WILE))
    queries = [await ann.press_raw(GROUP, lobby.message_id, data) for _ in range(2)]
    answers = [await api.wait_answer(q) for q in queries]
    await api.settle(quiet=0.1)
    assert sum(bool(a.get("show_alert")) for a in answers) == 1, answers
    assert [p.level for p in (await service_of(runner).get(1)).players] == [None, None, "hard"]


async def test_the_stand_in_level_setting_reaches_new_lobbies_and_rematches(table) -> None:
    """/settings' 🤖 Stand-in level cycles (admins only); a new lobby takes it, and so does
    a rematch: the chat's policies are the admins', and a rematch's lobby shows none of
    them (its own options, the edition and lives, carry over)."""
    api, (ann, bob, _cat), _clock, runner = table
    await ann.send(GROUP, "/settings")
    await wait_for(lambda: bool(api.find_messages(GROUP, "Defaults for new games")))
    await api.settle(quiet=0.05)
    panel = api.find_messages(GROUP, "Defaults for new games")[-1]
    button = next(t for t in labels(api, panel) if t.startswith("🤖 Stand-in level"))
    assert button == "🤖 Stand-in level: normal", labels(api, panel)
    answer = await bob.press_and_settle(panel, button)  # not an admin
    assert "only the group's admins" in (answer.get("text") or ""), answer
    for shown in ("normal", "easy"):  # normal → easy → hard
        await ann.press_and_settle(api.get_message(GROUP, panel.message_id),
                                   f"🤖 Stand-in level: {shown}")
    panel = api.get_message(GROUP, panel.message_id)
    assert "🤖 Stand-in level: hard" in labels(api, panel), labels(api, panel)
    lobby = await new_lobby(api, ann, "/newgame")
    assert (await service_of(runner).get(1)).options["stand_in_level"] == "hard"
    await tap(api, ann, lobby, "🤖 Add AI", "🤖 Add AI", "▶️ Start")
    final = await coyote_to_the_end(api, [ann], runner, 1)
    await ann.press_and_settle(panel, "🤖 Stand-in level: hard")
    assert "🤖 Stand-in level: normal" in labels(api, api.get_message(GROUP, panel.message_id))
    await ann.press_and_settle(final, "🔁 Rematch")
    assert (await service_of(runner).get(2)).options["stand_in_level"] == "normal"


async def test_a_full_table_of_computers_has_a_level_button_each(table) -> None:
    """Ten seats (Ann and nine computers): nine level buttons, three to a row, each
    callback within Telegram's 64 bytes; one more 🤖 is refused."""
    api, (ann, _bob, _cat), _clock, runner = table
    lobby = await new_lobby(api, ann, "/newgame")
    for _seat in range(9):
        await tap(api, ann, lobby, "🤖 Add AI")
    answer = await tap(api, ann, lobby, "🤖 Add AI")
    assert answer.get("show_alert") and "full" in answer["text"], answer
    message = api.get_message(GROUP, lobby.message_id)
    rows = message.reply_markup["inline_keyboard"]
    level_rows = [row for row in rows if all(b.get("callback_data", "").startswith("v:")
                                             for b in row)]
    assert [len(row) for row in level_rows] == [3, 3, 3], rows
    assert all(len(b.get("callback_data", "").encode()) <= 64 for row in rows for b in row)
    assert sum(p.is_ai for p in (await service_of(runner).get(1)).players) == 9
    # the last computer's button changes the last one
    last = level_rows[-1][-1]
    await ann.press_and_settle(message, last["callback_data"])
    levels = [p.level for p in (await service_of(runner).get(1)).players if p.is_ai]
    assert levels == ["normal"] * 8 + ["hard"], levels
