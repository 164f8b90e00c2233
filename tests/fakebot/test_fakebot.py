"""Tests of the fake Bot API, driven through PTB's real ``telegram.Bot``/``Application``."""

from __future__ import annotations

import asyncio
import json

import httpx
import pytest
from telegram import Bot, InlineKeyboardButton, InlineKeyboardMarkup, Update
from telegram.constants import ParseMode
from telegram.error import BadRequest, ChatMigrated, Forbidden, InvalidToken, RetryAfter
from telegram.ext import ApplicationBuilder, CallbackQueryHandler, CommandHandler, ContextTypes

from tests.fakebot import render_transcript
from tests.fakebot.html_check import HtmlParseError, parse_html

GROUP = -1001000000001
pytestmark = pytest.mark.timeout(10)


def keyboard(*labels: str) -> InlineKeyboardMarkup:
    return InlineKeyboardMarkup([[InlineKeyboardButton(x, callback_data=x.lower())
                                  for x in labels]])


# ---------------------------------------------------------------- basic protocol
async def test_get_me(bot, api):
    assert bot.id == 123
    assert bot.username == "coyote_league_bot"
    me = await bot.get_me()
    assert me.is_bot and me.first_name == "Coyote League" and me.can_join_groups
    assert api.calls("getMe")


async def test_wrong_token_and_unknown_method(api):
    async with httpx.AsyncClient() as client:
        bad = await client.post(f"{api.base_url}999:XYZ/getMe")
        assert bad.status_code == 401
        assert bad.json() == {"ok": False, "error_code": 401, "description": "Unauthorized"}
        unknown = await client.post(f"{api.base_url}{api.token}/fooBar")
        assert unknown.status_code == 404 and unknown.json()["description"] == "Not Found"
        assert api.unknown_methods == ["fooBar"]
        # method names are case-insensitive; JSON bodies and query strings work too
        ok = await client.post(f"{api.base_url}{api.token}/GETME")
        assert ok.json()["result"]["username"] == "coyote_league_bot"
        api.add_group(GROUP)
        sent = await client.post(f"{api.base_url}{api.token}/sendMessage",
                                 json={"chat_id": GROUP, "text": "json body"})
        assert sent.json()["result"]["text"] == "json body"
        sent = await client.get(f"{api.base_url}{api.token}/sendMessage",
                                params={"chat_id": GROUP, "text": "query"})
        assert sent.json()["result"]["message_id"] == 2
    wrong = Bot("999:XYZ", base_url=api.base_url)
    with pytest.raises(InvalidToken):
        await wrong.get_me()
    await wrong.shutdown()


async def test_send_edit_round_trip(bot, api):
    alice = api.add_user(1001, "Alice <3", username="alice")
    await alice.start_bot()
    msg = await bot.send_message(
        alice.id, "<b>Hi</b> &amp; <i>bye</i> 🎲", parse_mode=ParseMode.HTML,
        reply_markup=keyboard("Join", "Leave"),
    )
    assert msg.text == "Hi & bye 🎲"
    assert [(e.type, e.offset, e.length) for e in msg.entities] == [("bold", 0, 2),
                                                                   ("italic", 5, 3)]
    assert msg.chat.id == alice.id and msg.from_user.id == bot.id
    stored = api.last_bot_message(alice.id)
    assert stored.message_id == msg.message_id == 2  # /start was message 1
    assert stored.html.startswith("<b>Hi</b>")
    assert api.buttons(stored) == [("Join", "join"), ("Leave", "leave")]

    edited = await bot.edit_message_text("Now <b>2</b>", alice.id, msg.message_id,
                                         parse_mode=ParseMode.HTML)
    assert edited.text == "Now 2" and edited.edit_date is not None
    assert edited.reply_markup is None  # no markup in the edit removes the keyboard
    assert stored.edits == 1 and stored.text == "Now 2" and api.buttons(stored) == []

    with pytest.raises(BadRequest, match="(?i)message is not modified"):
        await bot.edit_message_text("Now <b>2</b>", alice.id, msg.message_id,
                                    parse_mode=ParseMode.HTML)
    await bot.edit_message_reply_markup(alice.id, msg.message_id, reply_markup=keyboard("A"))
    with pytest.raises(BadRequest, match="(?i)message is not modified"):
        await bot.edit_message_reply_markup(alice.id, msg.message_id, reply_markup=keyboard("A"))
    with pytest.raises(BadRequest, match="(?i)message to edit not found"):
        await bot.edit_message_text("x", alice.id, 999)
    with pytest.raises(BadRequest, match="(?i)message can't be edited"):
        await bot.edit_message_text("x", alice.id, 1)

    assert await bot.delete_message(alice.id, msg.message_id)
    assert api.last_bot_message(alice.id) is None
    assert api.get_message(alice.id, msg.message_id).deleted
    with pytest.raises(BadRequest, match="(?i)message to delete not found"):
        await bot.delete_message(alice.id, msg.message_id)
    kinds = [e.kind for e in api.log]
    assert kinds == ["user", "send", "edit", "edit", "delete"]


async def test_text_errors(bot, api):
    api.add_group(GROUP)
    with pytest.raises(BadRequest, match="(?i)message text is empty"):
        await bot.send_message(GROUP, "<b> </b>", parse_mode=ParseMode.HTML)
    with pytest.raises(BadRequest, match="(?i)message is too long"):
        await bot.send_message(GROUP, "x" * 4097)
    assert (await bot.send_message(GROUP, "<b>" + "x" * 4096 + "</b>", parse_mode="HTML")).text
    with pytest.raises(BadRequest, match="(?i)can't parse entities: Unsupported start tag"):
        await bot.send_message(GROUP, "Welcome <Bob>!", parse_mode=ParseMode.HTML)
    with pytest.raises(BadRequest, match="(?i)can't parse entities"):
        await bot.send_message(GROUP, "Tom & Jerry", parse_mode=ParseMode.HTML)
    with pytest.raises(BadRequest, match="(?i)chat not found"):
        await bot.send_message(-42, "hello")
    # MarkdownV2 is stored as-is
    assert (await bot.send_message(GROUP, "*x*", parse_mode=ParseMode.MARKDOWN_V2)).text == "*x*"


async def test_forbidden_private_chats(bot, api):
    bob = api.add_user(1002, "Bob")
    with pytest.raises(Forbidden, match="(?i)bot can't initiate conversation with a user"):
        await bot.send_message(bob.id, "hi")
    await bob.start_bot()
    await bot.send_message(bob.id, "hi")
    bob.block_bot()
    with pytest.raises(Forbidden, match="(?i)bot was blocked by the user"):
        await bot.send_message(bob.id, "hi")


async def test_keyboard_validation(bot, api):
    api.add_group(GROUP)
    too_long = InlineKeyboardMarkup([[InlineKeyboardButton("x", callback_data="é" * 33)]])
    with pytest.raises(BadRequest, match="(?i)BUTTON_DATA_INVALID"):
        await bot.send_message(GROUP, "hi", reply_markup=too_long)
    many = InlineKeyboardMarkup([[InlineKeyboardButton(str(i), callback_data=str(i))
                                  for i in range(8)] for _ in range(13)])
    with pytest.raises(BadRequest, match="(?i)reply markup is too long"):
        await bot.send_message(GROUP, "hi", reply_markup=many)
    no_action = InlineKeyboardMarkup([[InlineKeyboardButton("x")]])
    with pytest.raises(BadRequest, match="(?i)Text buttons are unallowed"):
        await bot.send_message(GROUP, "hi", reply_markup=no_action)
    assert not api.messages(GROUP)


async def test_migrated_group(bot, api):
    api.add_group(-5001, type="group", admins=[1])
    api.migrate_group(-5001, GROUP, announce=False)
    with pytest.raises(ChatMigrated) as info:
        await bot.send_message(-5001, "hi")
    assert info.value.new_chat_id == GROUP
    with pytest.raises(ChatMigrated):
        await bot.get_chat(-5001)
    assert (await bot.send_message(GROUP, "hi")).chat.type == "supergroup"


@pytest.mark.filterwarnings("ignore::telegram.warnings.PTBDeprecationWarning")
async def test_fail_next_injection(bot, api):
    api.add_group(GROUP)
    api.add_group(-7)
    api.fail_next("sendMessage", count=2, chat_id=GROUP)
    await bot.send_message(-7, "other chat is unaffected")
    for _ in range(2):
        with pytest.raises(RetryAfter, match="Retry in 1 second"):
            await bot.send_message(GROUP, "hi")
    await bot.send_message(GROUP, "works again")
    api.fail_next("editMessageText", 400, "Bad Request: message can't be edited")
    with pytest.raises(BadRequest, match="(?i)can't be edited"):
        await bot.edit_message_text("x", GROUP, 1)


# ---------------------------------------------------------------- updates
async def test_get_updates_bot_command(bot, api):
    api.add_group(GROUP, title="Game <night>", is_forum=True)
    carol = api.add_user(1003, "كارول", last_name="&amp;", username="carol")
    poll = asyncio.create_task(bot.get_updates(timeout=2, allowed_updates=Update.ALL_TYPES))
    await asyncio.sleep(0.05)
    assert not poll.done()  # long poll waits
    await carol.send(GROUP, "/newgame@coyote_league_bot now", thread_id=7)
    updates = await asyncio.wait_for(poll, 1)
    assert len(updates) == 1 and updates[0].update_id == 1
    message = updates[0].message
    assert message.text == "/newgame@coyote_league_bot now"
    assert message.from_user.first_name == "كارول" and message.from_user.last_name == "&amp;"
    assert message.chat.title == "Game <night>" and message.message_thread_id == 7
    assert message.is_topic_message
    entity = message.entities[0]
    assert (entity.type, entity.offset, entity.length) == ("bot_command", 0, 26)
    assert message.parse_entities() == {entity: "/newgame@coyote_league_bot"}
    # without confirmation the update is delivered again; offset confirms it
    assert [u.update_id for u in await bot.get_updates()] == [1]
    assert await bot.get_updates(offset=2) == ()


async def test_callback_query_round_trip(bot, api):
    dave = api.add_user(1004, "Dave")
    await dave.start_bot()
    sent = await bot.send_message(dave.id, "Play?", reply_markup=keyboard("Join", "Leave"))
    stored = api.get_message(dave.id, sent.message_id)
    query_id = await dave.press(stored, "Join")  # visible text
    assert await dave.press(stored, "leave")  # or callback_data
    with pytest.raises(LookupError, match="no button"):
        await dave.press(stored, "Nope")
    updates = await bot.get_updates()
    query = updates[1].callback_query
    assert query.id == query_id and query.data == "join" and query.from_user.id == dave.id
    assert query.message.message_id == sent.message_id and query.message.text == "Play?"
    with pytest.raises(BadRequest, match="(?i)MESSAGE_TOO_LONG"):
        await bot.answer_callback_query(query.id, text="x" * 201)
    await bot.answer_callback_query(query.id, text="Joined!", show_alert=True)
    answer = await api.wait_answer(query_id, timeout=1)
    assert answer["text"] == "Joined!" and answer["show_alert"] is True
    with pytest.raises(BadRequest, match="(?i)query is too old"):
        await bot.answer_callback_query(query.id)
    with pytest.raises(TimeoutError, match="was not answered"):
        await api.wait_answer(updates[2].callback_query.id, timeout=0.1)
    forged = await dave.press_raw(dave.id, sent.message_id, "x" * 100)
    assert (await bot.get_updates(offset=4))[0].callback_query.id == forged


async def test_send_photo_multipart_and_members(bot, api):
    api.add_group(GROUP, admins=[1, 2], bot_admin=True)
    api.add_user(1, "Owner")
    api.add_user(2, "Admin")
    api.add_user(3, "Member")
    photo = await bot.send_photo(GROUP, b"\x89PNG fake bytes", caption="<b>Table</b>",
                                 parse_mode=ParseMode.HTML)
    assert photo.caption == "Table" and photo.photo
    stored = api.get_message(GROUP, photo.message_id)
    assert stored.kind == "photo" and stored.photo == b"\x89PNG fake bytes"
    assert api.log[-1].kind == "photo"
    statuses = [(await bot.get_chat_member(GROUP, uid)).status for uid in (1, 2, 3, 99)]
    assert statuses == ["creator", "administrator", "member", "left"]
    admins = await bot.get_chat_administrators(GROUP)
    assert [a.user.id for a in admins] == [1, 2, 123]
    chat = await bot.get_chat(GROUP)
    assert chat.title == "Test group"
    await bot.set_my_commands([("newgame", "Start a game")])
    assert [c.command for c in await bot.get_my_commands()] == ["newgame"]
    assert await bot.delete_my_commands()
    assert await bot.get_my_commands() == ()


# ---------------------------------------------------------------- html checker
@pytest.mark.parametrize("text", [
    "a < b", "<p>x</p>", "<b>x", "<b><i>x</b></i>", "</b>", '<a href="x>y</a>',
    '<span class="red">x</span>', "x &nbsp; y", "<br/>",
    '<tg-time format="t">x</tg-time>', '<tg-time unix="1" format="tr">x</tg-time>',
])
def test_html_rejects(text):
    with pytest.raises(HtmlParseError):
        parse_html(text)


def test_html_accepts():
    text, entities = parse_html(
        '<B>😀b</B> <a href="https://e.x/?a=1&amp;b=2">l</a> &lt;&#62;&#x26;&quot; '
        '<pre><code class="language-python">p</code></pre> <tg-spoiler>s</tg-spoiler> '
        '<span class="tg-spoiler">t</span> <blockquote expandable>q</blockquote>'
    )
    assert text == '😀b l <>&" p s t q'
    assert entities[0] == {"type": "bold", "offset": 0, "length": 3}  # UTF-16 units
    assert {"type": "text_link", "offset": 4, "length": 1, "url": "https://e.x/?a=1&b=2"} \
        in entities
    assert {"type": "pre", "offset": 11, "length": 1, "language": "python"} in entities
    assert entities[-1]["type"] == "expandable_blockquote"
    assert parse_html('<tg-time unix="1647531900" format="wDT">22:45</tg-time>')[1] == [
        {"type": "date_time", "offset": 0, "length": 5, "unix_time": 1647531900,
         "date_time_format": "wDT"}]
    assert parse_html("Tom & Jerry", strict_amp=False)[0] == "Tom & Jerry"


# ---------------------------------------------------------------- application
async def test_application_command_and_button(api):
    async def start(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        await update.effective_message.reply_html(
            f"Hello <b>{update.effective_user.first_name}</b>!\nReady?",
            reply_markup=keyboard("Join"),
        )

    async def button(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        await update.callback_query.answer("You joined", show_alert=True)
        await update.callback_query.edit_message_text("Joined ✓")

    app = ApplicationBuilder().token(api.token).base_url(api.base_url).build()
    app.add_handler(CommandHandler("start", start))
    app.add_handler(CallbackQueryHandler(button))
    erin = api.add_user(1005, "Erin")
    await app.initialize()
    await app.start()
    await app.updater.start_polling(poll_interval=0, timeout=1)
    try:
        await erin.start_bot()
        await api.settle()
        reply = api.last_bot_message(erin.id)
        assert reply.text == "Hello Erin!\nReady?"
        answer = await erin.press_and_settle(reply, "Join")
        assert answer == {"text": "You joined", "show_alert": True, "url": None,
                          "cache_time": None}
        assert reply.text == "Joined ✓" and reply.edits == 1
    finally:
        await app.updater.stop()
        await app.stop()
        await app.shutdown()
    transcript = render_transcript(api, erin.id, title="Erin")
    assert transcript == (
        "=== Erin ===\n"
        "Erin: /start\n"
        "🤖 (msg 2) Hello Erin!\n"
        "   Ready?\n"
        "   [Join]\n"
        "Erin pressed [Join]\n"
        "(alert to Erin: You joined)\n"
        "✎ (msg 2) Joined ✓\n"
    )
    assert json.loads(json.dumps([r.method for r in api.requests]))  # all recorded


async def test_settle_times_out_without_poller(api):
    api.add_group(GROUP)
    frank = api.add_user(1006, "Frank")
    await frank.send(GROUP, "hello")
    with pytest.raises(TimeoutError, match="never fetched by getUpdates"):
        await api.settle(timeout=0.2)
