"""Fixtures of the Mini App tests: the real bot against the fake Bot API, with the Mini App
served beside it."""

from __future__ import annotations

import os

import httpx
import pytest

from tests.e2e.harness import bot_table
from tests.miniapp.server import init_data, miniapp_server


class Client:
    """An HTTP client of the Mini App's API, as ``user_id`` (``None``: no initData)."""

    def __init__(self, base: str, token: str) -> None:
        self.base = base
        self.token = token
        self.http = httpx.AsyncClient(timeout=30)

    def auth(self, user_id: int | None, name: str = "X", **kw) -> dict[str, str]:
        if user_id is None:
            return {}
        return {"Authorization": "tma " + init_data(self.token, user_id, name, **kw)}

    async def get(self, path: str, user_id: int | None, **kw) -> httpx.Response:
        return await self.http.get(self.base + "api/" + path, headers=self.auth(user_id, **kw))

    async def post(self, path: str, user_id: int | None, body: object,
                   headers: dict[str, str] | None = None) -> httpx.Response:
        return await self.http.post(self.base + "api/" + path, json=body,
                                    headers=headers if headers is not None
                                    else self.auth(user_id))


@pytest.fixture
async def mini(pg_db, pg_url, request):
    """``(api, players, runner, client)``: Ann, Bob and Cat (ids 1–3) in the module's
    ``GROUP``, the bot running, the Mini App served."""
    async with bot_table(pg_url, request.module.GROUP, "Mini league",
                         ["Ann", "Bob", "Cat"]) as (api, players, runner):
        async with miniapp_server(runner.app) as base:
            client = Client(base, api.token)
            try:
                yield api, players, runner, client
            finally:
                await client.http.aclose()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """In CI (``CI`` set) a Mini App test that skips fails: the browser must be there."""
    outcome = yield
    report = outcome.get_result()
    if report.skipped and os.environ.get("CI") and "tests/miniapp" in str(item.fspath):
        report.outcome = "failed"
        report.longrepr = f"skipped in CI, which must run it: {report.longrepr}"
