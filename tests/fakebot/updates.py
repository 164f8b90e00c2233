"""Update queue of the fake Bot API: getUpdates long polling and webhook delivery."""

from __future__ import annotations

import asyncio
import time
from typing import Any

from aiohttp import web

from .models import ApiError

_CONFLICT = "Conflict: terminated by other getUpdates request; make sure that only one bot instance is running"  # noqa: E501
_DEFAULT_EXCLUDED = frozenset({"chat_member", "message_reaction", "message_reaction_count"})


class UpdatesMixin:
    """The update queue (getUpdates, webhook delivery); expects the attributes of
    ``FakeBotAPI``."""

    webhook_targets: list[str]
    webhook_secret: str
    webhook_posts: list[tuple[str, int, int]]
    webhook_updates: dict[int, dict]
    fetched_at: dict[int, float]
    _updates: list[dict]
    _next_update_id: int
    _delivered_upto: int
    _allowed_updates: list[str] | None
    _updates_event: asyncio.Event
    _webhook_pending: set[int]
    _webhook_turn: int
    _webhook_session: Any
    _webhook_tasks: set[asyncio.Task]
    _poll_generation: int
    _closing: bool

    def _touch(self) -> None:  # provided by FakeBotAPI
        raise NotImplementedError

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
