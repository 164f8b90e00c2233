"""A fake Telegram Bot API server on loopback for end-to-end tests of PTB bots.

Point PTB at it with ``ApplicationBuilder().token(api.token).base_url(api.base_url)``.
Bot-method behaviour lives in :mod:`tests.fakebot.methods` (forum topics in
:mod:`tests.fakebot.topics`), scripted users in
:mod:`tests.fakebot.clients`; this module holds the HTTP layer, the state, the update
queue and the query/sync helpers.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections import Counter
from collections.abc import Callable
from operator import attrgetter
from typing import Any

from aiohttp import web

from .clients import FakeUser, UserActionsMixin
from .methods import MethodsMixin
from .models import ApiError, FakeChat, LogEntry, RecordedRequest, StoredMessage, buttons_of
from .topics import TopicsMixin

_JSON_KEYS = frozenset({
    "reply_markup", "entities", "caption_entities", "allowed_updates", "link_preview_options",
    "reply_parameters", "commands", "scope", "media", "results", "permissions", "menu_button",
})
_INT_KEYS = frozenset({
    "chat_id", "message_id", "offset", "limit", "timeout", "message_thread_id", "user_id",
    "cache_time", "reply_to_message_id", "from_chat_id", "until_date", "receiver_user_id",
    "ephemeral_message_id", "icon_color",
})
_TEXT_KEYS = frozenset({
    "text", "caption", "callback_query_id", "title", "description", "url", "parse_mode",
    "inline_message_id", "language_code", "name", "short_description", "action",
    "icon_custom_emoji_id",
})
_CONFLICT = "Conflict: terminated by other getUpdates request; make sure that only one bot instance is running"  # noqa: E501
_DEFAULT_EXCLUDED = frozenset({"chat_member", "message_reaction", "message_reaction_count"})
_BY_ID = attrgetter("message_id")


def _decode_value(key: str, value: Any) -> Any:
    """Turn a form-encoded string back into what PTB JSON-encoded."""
    if not isinstance(value, str):
        return value
    if key in _JSON_KEYS:
        try:
            return json.loads(value)
        except ValueError:
            return value
    if key in _INT_KEYS:
        try:
            return int(value)
        except ValueError:
            return value
    if key not in _TEXT_KEYS and value in ("true", "false"):
        return value == "true"
    return value


class FakeBotAPI(MethodsMixin, TopicsMixin, UserActionsMixin):
    """Fake Telegram Bot API server (aiohttp, 127.0.0.1, random port).

    Use ``async with FakeBotAPI(token="123:ABC") as api`` or ``await api.start()`` /
    ``await api.stop()``. ``strict_html_amp`` rejects a bare ``&`` in HTML text (Telegram
    tolerates it). ``delay``: seconds each call but ``getUpdates`` takes (as the real API's
    round trip; for benchmarks). Recorded state: ``counts`` (calls per method),
    ``requests`` (every bot call, with its arrival time: an ``answerCallbackQuery``'s
    ``callback_query_id`` and ``time`` say when a press was answered), ``fetched_at`` (when
    ``getUpdates`` handed out each update), ``log`` (visible events),
    ``chats``, ``users``, ``commands``, ``unknown_methods`` (methods the fake does not
    implement: Telegram answers 404 and PTB raises ``InvalidToken`` for them).
    """

    def __init__(
        self,
        token: str = "123:ABC",
        *,
        bot_username: str = "coyote_league_bot",
        bot_name: str = "Coyote League",
        strict_html_amp: bool = True,
        delay: float = 0.0,
    ):
        self.token = token
        self.delay = delay
        """Seconds every call but ``getUpdates`` takes (a round trip to the real API)."""
        self.counts: Counter[str] = Counter()
        """Calls per method (lower-cased), ``getUpdates`` included."""
        self.bot_id = int(token.split(":", 1)[0])
        self.bot_username = bot_username
        self.bot_name = bot_name
        self.strict_html_amp = strict_html_amp
        self.requests: list[RecordedRequest] = []
        self.log: list[LogEntry] = []
        self.chats: dict[int, FakeChat] = {}
        self.users: dict[int, FakeUser] = {}
        self.commands: dict[tuple[str, str], list[dict]] = {}
        self.webhook_url = ""
        self.unknown_methods: list[str] = []
        self.port: int | None = None
        self._runner: web.AppRunner | None = None
        self._updates: list[dict] = []
        self._next_update_id = 1
        self.fetched_at: dict[int, float] = {}
        """Update id -> monotonic time a ``getUpdates`` call first returned it (how long a
        press waited to reach the bot, for benchmarks)."""
        self._delivered_upto = 0
        self._allowed_updates: list[str] | None = None
        self._updates_event = asyncio.Event()
        # Webhook delivery (deliver_by_webhook): the URLs taken in turn, the secret token sent,
        # the updates not yet answered with a 200, the client session and its tasks.
        self.webhook_targets: list[str] = []
        self.webhook_secret = ""
        self.webhook_posts: list[tuple[str, int, int]] = []  # (url, update_id, status or 0)
        self._webhook_pending: set[int] = set()
        self.webhook_updates: dict[int, dict] = {}  # every update delivered so, by id
        self._webhook_turn = 0
        self._webhook_session: Any = None
        self._webhook_tasks: set[asyncio.Task] = set()
        self._poll_generation = 0
        self._closing = False
        self._inflight = 0
        self._last_activity = time.monotonic()
        self._activity = asyncio.Event()
        # In-process bots register a check here that is true while they still hold fetched
        # updates: a handler busy with the database makes no request, so quiet alone is not
        # enough to know the bot is done.
        self.busy_checks: list[Callable[[], bool]] = []
        self._failures: list[dict] = []
        self._queries: dict[str, dict] = {}
        self._answers: dict[str, dict] = {}
        self._query_counter = 0
        self._handlers = {
            name[3:]: getattr(self, name) for name in dir(self) if name.startswith("_m_")
        }

    # ------------------------------------------------------------------ lifecycle
    @property
    def base_url(self) -> str:
        """Value for ``ApplicationBuilder().base_url(...)`` / ``Bot(base_url=...)``."""
        if self.port is None:
            raise RuntimeError("FakeBotAPI is not started")
        return f"http://127.0.0.1:{self.port}/bot"

    async def start(self) -> FakeBotAPI:
        """Start listening on 127.0.0.1 (random port)."""
        app = web.Application()
        app.router.add_route("*", "/bot{token}/{method}", self._handle)
        self._closing = False
        self._runner = web.AppRunner(app, handler_cancellation=True, shutdown_timeout=0.5)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        self.port = self._runner.addresses[0][1]
        return self

    async def stop(self) -> None:
        """Wake pending long polls and shut the server down."""
        self._closing = True
        self._updates_event.set()
        for task in list(self._webhook_tasks):
            task.cancel()
        if self._webhook_session is not None:
            await self._webhook_session.close()
            self._webhook_session = None
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    async def __aenter__(self) -> FakeBotAPI:
        return await self.start()

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()

    # ------------------------------------------------------------------ HTTP layer
    async def _read_params(self, request: web.Request) -> dict[str, Any]:
        raw: dict[str, Any] = dict(request.query)
        ctype = request.content_type
        if ctype in ("application/x-www-form-urlencoded", "multipart/form-data"):
            form = await request.post()
            for key, value in form.items():
                raw[key] = value.file.read() if isinstance(value, web.FileField) else value
        elif request.can_read_body:
            body = await request.read()
            if body:
                try:
                    data = json.loads(body)
                except ValueError as exc:
                    raise ApiError(400, "Bad Request: can't parse JSON object") from exc
                raw.update(data if isinstance(data, dict) else {})
        params = {key: _decode_value(key, value) for key, value in raw.items()}
        for key, value in list(params.items()):  # resolve attach://<name> uploads
            if isinstance(value, str) and value.startswith("attach://"):
                part = value[len("attach://"):]
                if part in params:
                    params[key] = params.pop(part)
        return params

    async def _handle(self, request: web.Request) -> web.Response:
        if request.match_info["token"] != self.token:
            return web.json_response(ApiError(401, "Unauthorized").to_json(), status=401)
        method = request.match_info["method"]
        name = method.lower()
        is_poll = name == "getupdates"
        if not is_poll:
            self._inflight += 1
            self._touch()
        try:
            params = await self._read_params(request)
            self.requests.append(RecordedRequest(method, params))
            self.counts[name] += 1
            if self.delay and not is_poll:
                await asyncio.sleep(self.delay)
            handler = self._handlers.get(name)
            if handler is None and not is_poll:
                self.unknown_methods.append(method)  # PTB turns this 404 into InvalidToken
                raise ApiError(404, "Not Found")
            self._check_injected(name, params)
            self._check_migrated(params)
            if is_poll:
                result = await self._get_updates(params, request)
            else:
                result = handler(params)  # type: ignore[misc]
                if asyncio.iscoroutine(result):
                    result = await result
            body, status = {"ok": True, "result": result}, 200
        except ApiError as err:
            body, status = err.to_json(), err.error_code
        finally:
            if not is_poll:
                self._inflight -= 1
                self._touch()
        return web.json_response(body, status=status)

    def _touch(self) -> None:
        self._last_activity = time.monotonic()
        activity, self._activity = self._activity, asyncio.Event()
        activity.set()

    async def next_activity(self, timeout: float) -> None:  # noqa: ASYNC109
        """Wait until a request starts or ends (or ``timeout`` seconds pass): for a caller
        that waits for a state of the fake without polling it."""
        # (asyncio.timeout, not wait_for: no task for each wait of each waiter)
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(timeout):
                await self._activity.wait()

    # ------------------------------------------------------------------ error injection
    def fail_next(
        self,
        method: str,
        error_code: int = 429,
        description: str = "Too Many Requests: retry after 1",
        parameters: dict | None = None,
        count: int = 1,
        chat_id: int | None = None,
        when: Callable[[dict], bool] | None = None,
    ) -> None:
        """Make the next ``count`` calls of ``method`` (optionally only for ``chat_id``, or
        only those whose parameters satisfy ``when``) fail with the given error.
        ``parameters`` defaults to ``{"retry_after": 1}`` for a 429."""
        if parameters is None and error_code == 429:
            parameters = {"retry_after": 1}
        self._failures.append({
            "method": method.lower(), "error": ApiError(error_code, description, parameters),
            "count": count, "chat_id": chat_id, "when": when,
        })

    def _check_injected(self, name: str, params: dict) -> None:
        for failure in self._failures:
            if failure["method"] != name or failure["count"] <= 0:
                continue
            if failure["chat_id"] is not None and params.get("chat_id") != failure["chat_id"]:
                continue
            if failure["when"] is not None and not failure["when"](params):
                continue
            failure["count"] -= 1
            raise failure["error"]

    def _check_migrated(self, params: dict) -> None:
        chat = self.chats.get(params.get("chat_id"))  # type: ignore[arg-type]
        if chat is not None and chat.migrated_to is not None:
            raise ApiError(
                400, "Bad Request: group chat was upgraded to a supergroup chat",
                {"migrate_to_chat_id": chat.migrated_to},
            )

    # ------------------------------------------------------------------ updates
    def enqueue_update(self, payload: dict) -> dict:
        """Queue an update (``payload`` without ``update_id``) for getUpdates; returns it."""
        update = {"update_id": self._next_update_id, **payload}
        self._next_update_id += 1
        if self.webhook_targets:
            self._post_update(update)
            return update
        self._updates.append(update)
        self._updates_event.set()
        return update

    def deliver_by_webhook(self, urls: list[str], secret: str) -> None:
        """From now on POST each update (as JSON, with the ``X-Telegram-Bot-Api-Secret-Token``
        header ``secret``) to ``urls`` in turn, as Telegram does in front of a load balancer;
        an answer other than 200, or no connection, is tried again at the next URL after a
        short pause (Telegram retries too). Updates queued for getUpdates go out first."""
        self.webhook_targets = list(urls)
        self.webhook_secret = secret
        pending, self._updates = self._updates, []
        for update in pending:
            self._post_update(update)

    def redeliver(self, update: dict) -> None:
        """Deliver ``update`` (as :meth:`enqueue_update` returned it) once more, same id:
        Telegram repeats a webhook whose 200 it did not see."""
        self._post_update(update)

    def _post_update(self, update: dict) -> None:
        self.webhook_updates[update["update_id"]] = update
        self._webhook_pending.add(update["update_id"])
        task = asyncio.get_running_loop().create_task(self._webhook_deliver(update))
        self._webhook_tasks.add(task)
        task.add_done_callback(self._webhook_tasks.discard)

    async def _webhook_deliver(self, update: dict) -> None:
        import aiohttp

        if self._webhook_session is None:
            self._webhook_session = aiohttp.ClientSession()
        while not self._closing:
            url = self.webhook_targets[self._webhook_turn % len(self.webhook_targets)]
            self._webhook_turn += 1
            status = 0
            try:
                async with self._webhook_session.post(
                        url, json=update, timeout=aiohttp.ClientTimeout(total=30),
                        headers={"X-Telegram-Bot-Api-Secret-Token": self.webhook_secret}) as r:
                    status = r.status
            except (aiohttp.ClientError, TimeoutError, OSError):
                status = 0
            self.webhook_posts.append((url, update["update_id"], status))
            if status == 200:
                self._webhook_pending.discard(update["update_id"])
                self._touch()
                return
            await asyncio.sleep(0.2)

    def unconfirmed(self) -> list[int]:
        """Ids of the updates queued for getUpdates that no ``offset`` has confirmed yet
        (fetched or not): Telegram would deliver them again."""
        return [u["update_id"] for u in self._updates]

    def _is_allowed(self, update: dict) -> bool:
        kind = next(k for k in update if k != "update_id")
        if self._allowed_updates:
            return kind in self._allowed_updates
        return kind not in _DEFAULT_EXCLUDED

    def _drop_pending(self) -> None:
        if self._updates:
            self._delivered_upto = max(self._delivered_upto, self._updates[-1]["update_id"])
        self._updates.clear()

    async def _get_updates(self, p: dict, request: web.Request) -> list[dict]:
        offset = p.get("offset") or 0
        limit = max(1, min(int(p.get("limit") or 100), 100))
        timeout = float(p.get("timeout") or 0)
        if isinstance(p.get("allowed_updates"), list):
            self._allowed_updates = p["allowed_updates"] or None
        if offset < 0:
            self._updates = self._updates[offset:]
        elif offset:
            self._updates = [u for u in self._updates if u["update_id"] >= offset]
        self._poll_generation += 1
        generation = self._poll_generation
        self._updates_event.set()  # terminates an older pending long poll (409, like Telegram)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            await asyncio.sleep(0)
            if generation != self._poll_generation:
                raise ApiError(409, _CONFLICT)
            for update in [u for u in self._updates if not self._is_allowed(u)]:
                self._updates.remove(update)
                self._delivered_upto = max(self._delivered_upto, update["update_id"])
            ready = self._updates[:limit]
            remaining = deadline - loop.time()
            if ready or remaining <= 0 or self._closing:
                break
            self._updates_event.clear()
            try:
                await asyncio.wait_for(self._updates_event.wait(), remaining)
            except TimeoutError:
                pass
        transport = request.transport
        if ready and transport is not None and not transport.is_closing():
            self._delivered_upto = max(self._delivered_upto, ready[-1]["update_id"])
            self._touch()
            now = time.monotonic()
            for update in ready:
                self.fetched_at.setdefault(update["update_id"], now)
        return ready

    # ------------------------------------------------------------------ sync helpers
    async def settle(self, quiet: float = 0.15, timeout: float = 30) -> None:  # noqa: ASYNC109
        """Wait until every queued update was fetched via getUpdates and no bot request
        (other than a pending long poll) happened for ``quiet`` seconds."""
        deadline = time.monotonic() + timeout
        while True:
            now = time.monotonic()
            undelivered = len(self._webhook_pending) if self.webhook_targets else \
                self._next_update_id - 1 - self._delivered_upto
            if undelivered <= 0 and self._inflight == 0 and now - self._last_activity >= quiet \
                    and not any(busy() for busy in self.busy_checks):
                return
            if now > deadline:
                hint = ""
                if undelivered > 0:
                    hint = (f"{undelivered} update(s) never fetched by getUpdates "
                            "(is the bot polling?); ")
                if any(busy() for busy in self.busy_checks):
                    hint += "the bot is still handling an update; "
                raise TimeoutError(
                    f"settle() timed out after {timeout}s: {hint}{self._inflight} request(s) in "
                    f"flight; last requests: {[r.method for r in self.requests[-5:]]}"
                )
            await asyncio.sleep(0.01)

    async def wait_answer(self, query_id: str, timeout: float = 15) -> dict:  # noqa: ASYNC109
        """Wait for the bot's answerCallbackQuery for ``query_id``; returns the answer dict."""
        deadline = time.monotonic() + timeout
        while query_id not in self._answers:
            if time.monotonic() > deadline:
                query = self._queries.get(query_id)
                raise TimeoutError(
                    f"callback query {query_id!r} (data={query and query['data']!r}) was not "
                    f"answered within {timeout}s; delivered={self._delivered_upto}/"
                    f"{self._next_update_id - 1} updates; last requests: "
                    f"{[r.method for r in self.requests[-5:]]}"
                )
            await asyncio.sleep(0.01)
        return self._answers[query_id]

    # ------------------------------------------------------------------ query helpers
    def calls(self, method: str) -> list[RecordedRequest]:
        """Recorded requests of one method (case-insensitive)."""
        return [r for r in self.requests if r.method.lower() == method.lower()]

    def messages(self, chat_id: int, include_deleted: bool = False, *,
                 viewer: int | None = None) -> list[StoredMessage]:
        """Messages of a chat (bot and user), oldest first, as everyone sees them; with
        ``viewer`` (a user id), as that user sees them: with the ephemeral messages only
        they receive."""
        chat = self.chats.get(chat_id)
        if chat is None:
            return []
        found = sorted(chat.messages.values(), key=_BY_ID)
        if viewer is not None:
            found = sorted(found + self.ephemeral_messages(chat_id, viewer, include_deleted),
                           key=lambda m: m.seq)
        return [m for m in found if include_deleted or not m.deleted]

    def ephemeral_messages(self, chat_id: int, receiver: int | None = None,
                           include_deleted: bool = False) -> list[StoredMessage]:
        """The ephemeral messages of a group (only ``receiver``'s, if given), oldest first."""
        chat = self.chats.get(chat_id)
        if chat is None:
            return []
        return [m for m in chat.ephemeral_log if (receiver is None or m.receiver_id == receiver)
                and (include_deleted or not m.deleted)]

    def get_ephemeral(self, chat_id: int, ephemeral_id: int) -> StoredMessage | None:
        """The ephemeral message of a group that now has this id, or ``None``."""
        chat = self.chats.get(chat_id)
        return chat.ephemeral.get(ephemeral_id) if chat else None

    def bot_messages(self, chat_id: int, *, viewer: int | None = None) -> list[StoredMessage]:
        """Non-deleted messages the bot sent to a chat, oldest first (``viewer``: as
        :meth:`messages`)."""
        return [m for m in self.messages(chat_id, viewer=viewer) if m.from_bot]

    def last_bot_message(self, chat_id: int) -> StoredMessage | None:
        """The newest non-deleted bot message in a chat."""
        found = self.bot_messages(chat_id)
        return found[-1] if found else None

    def find_messages(self, chat_id: int, contains: str) -> list[StoredMessage]:
        """Non-deleted messages whose (plain) text/caption contains ``contains``."""
        return [m for m in self.messages(chat_id) if contains in (m.text or "")]

    def get_message(self, chat_id: int, message_id: int) -> StoredMessage | None:
        """A stored message (deleted ones included) or ``None``."""
        chat = self.chats.get(chat_id)
        return chat.messages.get(message_id) if chat else None

    @staticmethod
    def buttons(message: StoredMessage) -> list[tuple[str, str | None]]:
        """Inline buttons of a message as ``(text, callback_data or url)``."""
        return buttons_of(message.reply_markup)

    def callback_answer(self, query_id: str) -> dict | None:
        """The bot's answer to a callback query (``text``, ``show_alert``...) or ``None``."""
        return self._answers.get(query_id)
