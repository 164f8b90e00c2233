"""Whether a webhook body (or a polled item) is an update the bot can take
(``telegram_app.transport.update_check``): every body either gives an update each later step
reads without an error, or raises ``NotAnUpdate`` (the webhook's 200, the item ignored) —
never anything else (the webhook's 500, a crashed poll or handler).

PTB's ``de_json`` takes a ``null`` where Telegram always sends an object (``"chat": null``,
a ``chat_member`` of ``{}``, a press ``"from": null``) and leaves ``None`` there; those shapes
(:data:`NULL_SHAPES`, found by a fuzzer) made the check itself raise ``AttributeError``."""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from telegram import Bot, Update

from telegram_app.transport.intake.lanes import lane_of
from telegram_app.transport.outage import answerable
from telegram_app.transport.update_check import (
    NotAnUpdate,
    misshapen,
    polled_update,
    update_of,
)

BOT = Bot("123:ABC")
USER = {"id": 5, "is_bot": False, "first_name": "Ann", "language_code": "en"}
CHAT = {"id": -1001, "type": "supergroup", "title": "G", "is_forum": True}
MESSAGE = {"message_id": 7, "date": 1, "chat": CHAT, "from": USER, "text": "/newgame@bot",
           "message_thread_id": 3, "is_topic_message": True,
           "entities": [{"type": "bot_command", "offset": 0, "length": 12}],
           "reply_to_message": {"message_id": 3, "date": 1, "chat": CHAT, "from": USER,
                                "forum_topic_created": {"name": "t", "icon_color": 1}}}


def _change(old: str, new: str) -> dict:
    return {"chat": CHAT, "from": USER, "date": 1,
            "old_chat_member": {"status": old, "user": USER},
            "new_chat_member": {"status": new, "user": USER}}


SAMPLES: list[dict[str, Any]] = [
    {"update_id": 1, "message": MESSAGE},
    {"update_id": 2, "callback_query": {"id": "q", "from": USER, "chat_instance": "c",
                                        "data": "j:5", "message": MESSAGE}},
    {"update_id": 3, "chat_member": _change("member", "left")},
    {"update_id": 4, "my_chat_member": _change("left", "member")},
    {"update_id": 5, "edited_message": MESSAGE},
    {"update_id": 6, "message": {**MESSAGE, "new_chat_members": [USER], "left_chat_member": USER,
                                  "sender_chat": CHAT, "migrate_to_chat_id": -100200}},
    {"update_id": 7, "callback_query": {  # a press on a message the bot can no longer read
        "id": "q", "from": USER, "chat_instance": "c", "data": "j:5",
        "message": {"message_id": 7, "date": 0, "chat": CHAT}}},
]

Path = tuple[str | int, ...]
NULL_SHAPES: list[tuple[int, Path, Any]] = [
    # (sample's update_id, path, value): what the reviewer's fuzzer found (21), and more
    (1, ("message", "chat"), None),
    (6, ("message", "chat"), None),
    (5, ("edited_message", "chat"), None),
    (2, ("callback_query", "from"), None),
    (2, ("callback_query", "message", "chat"), None),
    *((n, path, value) for n, kind in ((3, "chat_member"), (4, "my_chat_member"))
      for path, value in (((kind,), {}), ((kind,), {"id": 1}), ((kind, "chat"), None),
                          ((kind, "from"), None),
                          ((kind, "old_chat_member"), None), ((kind, "new_chat_member"), None),
                          ((kind, "old_chat_member", "user"), None),
                          ((kind, "new_chat_member", "user"), None))),
    # (not found by the fuzzer: a press on a message too old to read, list items that are null)
    (7, ("callback_query", "message", "chat"), None),
    (1, ("message", "entities", 0), None),
    (6, ("message", "new_chat_members", 0), None),
]
VALUES: list[Any] = [None, True, 0, -1, 2**62, 1.5, "x", "", [], [1], {}, {"id": 1}]


def _sample(update_id: int) -> dict[str, Any]:
    return copy.deepcopy(next(s for s in SAMPLES if s["update_id"] == update_id))


def _paths(value: Any, prefix: Path = ()) -> Iterator[Path]:
    items = value.items() if isinstance(value, dict) else \
        enumerate(value) if isinstance(value, list) else ()
    for key, child in items:
        yield (*prefix, key)
        yield from _paths(child, (*prefix, key))


def _with(body: dict[str, Any], path: Path, value: Any) -> dict[str, Any]:
    body = copy.deepcopy(body)
    target: Any = body
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    return body


def _read_like_the_bot(update: Update) -> None:
    """What the intake and the handlers read of an update (raises if they could not)."""
    lane_of(update)
    answerable(update)
    assert misshapen(update) is None
    update.to_dict()  # (the intake stores this when it has no JSON)
    query = update.callback_query
    if query is not None:
        assert isinstance(query.from_user.id, int) and query.data is None or \
            isinstance(query.data, str)
        if query.message is not None:
            assert isinstance(query.message.chat.id, int)
            assert isinstance(query.message.message_id, int)
    for change in (update.chat_member, update.my_chat_member):
        if change is not None:
            assert isinstance(change.chat.id + change.from_user.id, int)
            for member in (change.old_chat_member, change.new_chat_member):
                assert isinstance(member.status, str) and isinstance(member.user.id, int)
    message = update.effective_message
    if message is not None:
        assert isinstance(message.chat.id, int) and isinstance(message.chat.type, str)
        for entity in message.entities:
            assert isinstance(entity.offset + entity.length, int)
        for user in message.new_chat_members:
            assert isinstance(user.id, int)
    if update.effective_chat is not None:
        assert isinstance(update.effective_chat.id, int)
    if update.effective_user is not None:
        assert isinstance(update.effective_user.id, int)


def _taken_or_refused(body: Any) -> Update | None:
    """The update ``body`` gives (read as the bot would), or ``None``: it is no update. Any
    other exception fails the test. Webhook and polling agree."""
    try:
        update, _raw = update_of(json.dumps(body).encode(), BOT)
    except NotAnUpdate:
        with pytest.raises(NotAnUpdate):
            polled_update(body, BOT)
        return None
    assert polled_update(body, BOT).update_id == update.update_id
    _read_like_the_bot(update)
    return update


def test_the_samples_are_updates() -> None:
    for sample in SAMPLES:
        assert _taken_or_refused(sample) is not None, sample


@pytest.mark.parametrize(("update_id", "path", "value"), NULL_SHAPES,
                         ids=[f"{n}:{'.'.join(map(str, p))}={json.dumps(v)}"
                              for n, p, v in NULL_SHAPES])
def test_a_null_where_telegram_sends_an_object_is_no_update(update_id, path, value) -> None:
    body = _with(_sample(update_id), path, value)
    with pytest.raises(NotAnUpdate):
        update_of(json.dumps(body).encode(), BOT)
    with pytest.raises(NotAnUpdate):
        polled_update(body, BOT)


def test_every_field_of_every_sample_with_every_json_type() -> None:
    """The fuzzer, as a test: each field of each sample set to each kind of JSON value."""
    tried = refused = 0
    for sample in SAMPLES:
        for path in list(_paths(sample)):
            for value in VALUES:
                tried += 1
                refused += _taken_or_refused(_with(sample, path, value)) is None
    assert tried > 2000 and refused > 500, (tried, refused)


JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-2**70, 2**70) | st.floats(allow_nan=False)
    | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(
        st.sampled_from(["id", "type", "user", "chat", "from", "status", "text", "date",
                         "message_id", "first_name", "is_bot"]) | st.text(max_size=3),
        inner, max_size=4),
    max_leaves=12)


@st.composite
def _mutated(draw: st.DrawFn) -> dict[str, Any]:
    body = draw(st.sampled_from(SAMPLES))
    for _ in range(draw(st.integers(1, 3))):
        path = draw(st.sampled_from(list(_paths(body))))
        body = _with(body, path, draw(JSON))
    return body


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_mutated())
def test_any_json_in_any_field_is_an_update_or_none(body: dict[str, Any]) -> None:
    _taken_or_refused(body)


def test_a_polled_item_is_held_to_the_webhook_s_json_rules() -> None:
    for item in ({"update_id": 1, "x": float("nan")}, {"update_id": 1, "x": 2**64},
                 {"update_id": 1, "message": {**MESSAGE, "chat": {**CHAT, "id": 2**70}}}):
        with pytest.raises(NotAnUpdate):
            polled_update(item, BOT)
