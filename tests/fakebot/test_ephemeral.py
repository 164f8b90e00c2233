"""The fake Bot API's ephemeral messages (Bot API 10.2), driven through PTB's real ``Bot``:
a message in a group that only its receiver sees, edited and deleted by its id in the
chat; the documented refusals; a press on one of its buttons."""

from __future__ import annotations

import pytest
from telegram import Bot, InlineKeyboardButton, InlineKeyboardMarkup
from telegram.error import BadRequest

from tests.fakebot import FakeBotAPI, render_transcript

GROUP = -1001000000002
pytestmark = pytest.mark.timeout(10)


def keyboard(*labels: str) -> dict:
    return InlineKeyboardMarkup([[InlineKeyboardButton(x, callback_data=x.lower())
                                  for x in labels]]).to_dict()


async def send(bot: Bot, **params) -> dict:
    return await bot.do_api_request("sendMessage", api_kwargs=params)


async def test_only_the_receiver_sees_it(bot: Bot, api: FakeBotAPI) -> None:
    api.add_group(GROUP, "Night")
    ann, bob = api.add_user(1, "Ann"), api.add_user(2, "Bob")
    await bot.send_message(GROUP, "for all")
    sent = await send(bot, chat_id=GROUP, text="Ann's cards: 7", receiver_user_id=ann.id,
                      reply_markup=keyboard("Bid"), message_thread_id=5)
    assert sent["message_id"] == 0 and sent["ephemeral_message_id"] == 1
    assert sent["receiver_user"]["id"] == ann.id and sent["chat"]["id"] == GROUP
    assert sent["message_thread_id"] == 5
    # Everyone's view of the group, and Bob's, lack it; Ann's has it after the first message.
    assert [m.text for m in api.messages(GROUP)] == ["for all"]
    assert [m.text for m in api.messages(GROUP, viewer=bob.id)] == ["for all"]
    assert [m.text for m in api.messages(GROUP, viewer=ann.id)] == ["for all", "Ann's cards: 7"]
    assert "Ann's cards" not in render_transcript(api, GROUP)
    assert "Ann's cards" not in render_transcript(api, GROUP, viewer=bob.id)
    assert "(ephemeral 1) Ann's cards: 7" in render_transcript(api, GROUP, viewer=ann.id)

    assert await bot.do_api_request("editEphemeralMessageText", api_kwargs={
        "chat_id": GROUP, "receiver_user_id": ann.id, "ephemeral_message_id": 1,
        "text": "Ann's cards: 8"}) is True
    message = api.ephemeral_messages(GROUP, ann.id)[0]
    assert message.text == "Ann's cards: 8" and message.reply_markup is None
    assert await bot.do_api_request("editEphemeralMessageReplyMarkup", api_kwargs={
        "chat_id": GROUP, "receiver_user_id": ann.id, "ephemeral_message_id": 1,
        "reply_markup": keyboard("Call")}) is True
    assert api.buttons(message) == [("Call", "call")]

    # Her press carries the message as Telegram sends it: the group, id 0, the ephemeral id.
    with pytest.raises(LookupError):
        await bob.press(message, "Call")
    query = await ann.press(message, "Call")
    update = api._updates[-1]["callback_query"]
    assert update["id"] == query and update["message"]["message_id"] == 0
    assert update["message"]["ephemeral_message_id"] == 1
    assert update["message"]["chat"]["id"] == GROUP
    assert update["message"]["receiver_user"]["id"] == ann.id
    # A message sent for that press: the receiver is the presser.
    again = await send(bot, chat_id=GROUP, text="again", callback_query_id=query)
    assert again["receiver_user"]["id"] == ann.id and again["ephemeral_message_id"] == 2

    assert await bot.do_api_request("deleteEphemeralMessage", api_kwargs={
        "chat_id": GROUP, "receiver_user_id": ann.id, "ephemeral_message_id": 1}) is True
    assert [m.text for m in api.ephemeral_messages(GROUP, ann.id)] == ["again"]
    with pytest.raises(LookupError):
        await ann.press(message, "Call")
    # The id of a deleted ephemeral message is given to the next one (Telegram may, too).
    reused = await send(bot, chat_id=GROUP, text="Bob's", receiver_user_id=bob.id)
    assert reused["ephemeral_message_id"] == 1


async def test_refusals(bot: Bot, api: FakeBotAPI) -> None:
    api.add_group(GROUP, "Night")
    ann, bob = api.add_user(1, "Ann"), api.add_user(2, "Bob")
    await ann.start_bot()
    with pytest.raises(BadRequest):  # a private chat
        await send(bot, chat_id=ann.id, text="x", receiver_user_id=ann.id)
    with pytest.raises(BadRequest, match="(?i)user not found"):  # not in the group
        await send(bot, chat_id=GROUP, text="x", receiver_user_id=999)
    api.chats[GROUP].statuses[bob.id] = "left"
    with pytest.raises(BadRequest, match="(?i)user not found"):
        await send(bot, chat_id=GROUP, text="x", receiver_user_id=bob.id)
    with pytest.raises(BadRequest, match="(?i)query is too old"):
        await send(bot, chat_id=GROUP, text="x", callback_query_id="42")
    sent = await send(bot, chat_id=GROUP, text="x", receiver_user_id=ann.id)
    target = {"chat_id": GROUP, "receiver_user_id": ann.id,
              "ephemeral_message_id": sent["ephemeral_message_id"]}
    with pytest.raises(BadRequest, match="(?i)not modified"):
        await bot.do_api_request("editEphemeralMessageText", api_kwargs={**target, "text": "x"})
    with pytest.raises(BadRequest, match="(?i)message to edit not found"):
        await bot.do_api_request("editEphemeralMessageText", api_kwargs={
            **target, "ephemeral_message_id": 7, "text": "y"})
    with pytest.raises(BadRequest, match="(?i)message to delete not found"):
        await bot.do_api_request("deleteEphemeralMessage", api_kwargs={
            **target, "ephemeral_message_id": 7})
    cat = api.add_user(3, "Cat")
    with pytest.raises(BadRequest, match="(?i)message to edit not found"):  # Ann's, not Cat's
        await bot.do_api_request("editEphemeralMessageText", api_kwargs={
            **target, "receiver_user_id": cat.id, "text": "y"})
