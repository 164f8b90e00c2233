"""Which lane an update is handled in (``telegram_app.transport.intake.lane_of``)."""

from __future__ import annotations

from telegram import Update

from telegram_app.transport.intake import lane_of

USER = {"id": 7, "is_bot": False, "first_name": "Ann"}
GROUP = {"id": -100, "type": "supergroup", "title": "G", "is_forum": True}


def _message(chat: dict, thread: int | None = None, text: str = "/newgame") -> dict:
    message = {"message_id": 3, "date": 0, "chat": chat, "from": USER, "text": text}
    if thread is not None:
        message.update(message_thread_id=thread, is_topic_message=True)
    return message


def _press(data: str, chat: dict = GROUP) -> Update:
    return Update.de_json({"update_id": 1, "callback_query": {
        "id": "q", "from": USER, "chat_instance": "c", "data": data,
        "message": _message(chat)}}, None)


def test_a_button_naming_a_game_is_in_the_games_lane() -> None:
    assert lane_of(_press("b:42:3:5")) == "g42"
    assert lane_of(_press("c:42:3", chat={"id": 7, "type": "private"})) == "g42"


def test_forged_data_and_chat_settings_go_by_chat() -> None:
    assert lane_of(_press("💥:1")) == "c-100:0"
    assert lane_of(_press("z:0:1:2")) == "c-100:0"
    assert lane_of(_press("nonsense", chat={"id": 7, "type": "private"})) == "u7"


def test_messages_go_by_chat_topic_or_private_user() -> None:
    topic = Update.de_json({"update_id": 2, "message": _message(GROUP, thread=11)}, None)
    plain = Update.de_json({"update_id": 3, "message": _message(GROUP)}, None)
    private = Update.de_json({"update_id": 4, "message": _message(
        {"id": 7, "type": "private"}, text="12")}, None)
    assert (lane_of(topic), lane_of(plain), lane_of(private)) == ("c-100:11", "c-100:0", "u7")
    assert all(len(lane_of(u)) <= 64 for u in (topic, plain, private))
