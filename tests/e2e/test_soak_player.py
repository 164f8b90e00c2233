"""The soak's scripted player (``bench/soak_players.py``) finds its keyboard however many of the
bot's replies to junk follow it: it looked among the last six only, which stalled a fuzz-phase
game for good (seed 11)."""

from __future__ import annotations

from bench.soak_players import turn_message
from tests.fakebot import FakeBotAPI


async def test_the_keyboard_is_found_behind_replies_to_junk() -> None:
    async with FakeBotAPI() as api:
        user = api.add_user(7, "Ann")
        await user.start_bot()
        send = api._handlers["sendmessage"]
        keyboard = {"inline_keyboard": [[{"text": "3", "callback_data": "b:1:5:3"}]]}
        send({"chat_id": user.id, "text": "your turn", "reply_markup": keyboard})
        for _ in range(12):  # replies to /help, /rules, junk …
            send({"chat_id": user.id, "text": "Sorry, I did not understand."})
        found = turn_message(api, user)
        assert found is not None and found.text == "your turn"
        assert turn_message(api, user, newer_than=5) is None  # pressed already
