"""Attacker's probe of the bot's web app (not a test): the webhook and the Mini App served by
uvicorn as in production (``telegram_app.transport.web`` with the Mini App's routes), the real bot
against the fake Bot API on a throwaway PostgreSQL database, and a few hundred hostile
requests: junk and oversized webhook bodies, forged secrets, bodies no database can store,
hostile paths, forged or odd ``initData``, outsiders asking for a game's pages, move bodies
that are no move.

Reported: every answer by status; a **violation** is a 5xx, a 2xx to someone who may not
read what they asked for (an outsider, a member of another chat), a refusal that carries a
table, a junk webhook body that was stored, or an ERROR line (a traceback) in the log.

Run: ``.venv/bin/python -m bench.probe [--fuzz 300] [--seed 1]``; exits 1 on a violation.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import random
import time
from collections import Counter
from collections.abc import AsyncIterator, Iterable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from urllib.parse import quote

import httpx
import uvicorn
from sqlalchemy import func, select

from bench.pg import throwaway_database
from league.store.models import InboxItem
from league.store.snapshots import UserRef
from telegram_app import miniapp
from telegram_app.miniapp.initdata import sign
from telegram_app.transport.web import create_web_app
from tests.e2e.harness import bot_table, start_game
from tests.miniapp.server import free_port, init_data

GROUP, OTHER_GROUP = -100411, -100412
SECRET = "probe-webhook-secret-0123456789"
OUTSIDER, OTHER_MEMBER = 99, 77  # never played; played only in OTHER_GROUP
PROTECTED = ["game/1", "game/1/moves", "game/1/events", f"chat/{GROUP}",
             f"chat/{GROUP}/standings", f"chat/{GROUP}/history", "replay/1",
             f"profile/1?chat={GROUP}"]


@dataclass
class Findings:
    statuses: Counter[int] = field(default_factory=Counter)
    violations: list[str] = field(default_factory=list)
    sent: int = 0

    def saw(self, what: str, status: int, *, allowed: Iterable[int] | None = None) -> None:
        self.sent += 1
        self.statuses[status] += 1
        if status >= 500:
            self.violations.append(f"{status} for {what}")
        elif allowed is not None and status not in allowed:
            self.violations.append(f"{status} (wanted {sorted(allowed)}) for {what}")


class Errors(logging.Handler):
    """Collects the log's ERROR lines (a traceback means something was not handled)."""

    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(f"{record.name}: {record.getMessage()[:200]}"
                          + (" (traceback)" if record.exc_info else ""))


async def raw(port: int, method: str, target: str, headers: dict[str, str] | None = None,
              body: bytes = b"", announce: int | None = None) -> int:
    """One HTTP/1.1 request written by hand (paths and headers exactly as given; ``announce``:
    a Content-Length larger than the body sent); returns the status (0: no answer)."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        lines = [f"{method} {target} HTTP/1.1", "Host: 127.0.0.1", "Connection: close",
                 f"Content-Length: {announce if announce is not None else len(body)}",
                 *(f"{k}: {v}" for k, v in (headers or {}).items())]
        writer.write(("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + body)
        await writer.drain()
        status_line = await asyncio.wait_for(reader.readline(), 10)
        parts = status_line.split()
        return int(parts[1]) if len(parts) > 1 else 0
    except (TimeoutError, ConnectionError):
        return 0
    finally:
        writer.close()


@asynccontextmanager
async def served(app) -> AsyncIterator[int]:
    """The bot's whole web app (webhook at /hook, /healthz, /metrics, the Mini App) on a
    free port, as ``telegram_app.app.make_server`` composes it."""
    web = create_web_app(app, webhook_path="/hook", secret=SECRET,
                         extra_routes=miniapp.routes(app))
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(web, host="127.0.0.1", port=port,
                                           log_level="warning", access_log=False,
                                           lifespan="off", timeout_graceful_shutdown=1))
    task = asyncio.create_task(server.serve())
    try:
        while not server.started:
            if task.done():
                task.result()
            await asyncio.sleep(0.01)
        yield port
    finally:
        server.should_exit = True
        await asyncio.wait_for(task, 10)


def update(update_id: int, **payload: object) -> dict:
    return {"update_id": update_id, **payload}


def press(update_id: int, data: object, user_id: int = 1) -> dict:
    return update(update_id, callback_query={
        "id": f"q{update_id}", "chat_instance": "1", "data": data,
        "from": {"id": user_id, "is_bot": False, "first_name": "Ann"}})


def text(update_id: int, body: object, chat: object = None) -> dict:
    return update(update_id, message={
        "message_id": 1, "date": int(time.time()), "text": body,
        "chat": chat if chat is not None else {"id": 1, "type": "private"},
        "from": {"id": 1, "is_bot": False, "first_name": "Ann"}})


JUNK = [b"", b"[]", b'"x"', b"null", b"1", b"true", b"{}", b"{not json", b"\xff\xfe\x00",
        "\ufeff{}".encode(), '{"update_id":1}'.encode("utf-16"), b'{"update_id":"abc"}',
        b'{"update_id":true}', b'{"update_id":1.5}', b'{"update_id":-1}',
        b'{"update_id":100000000000000000000000000000}', b'{"update_id":9223372036854775808}',
        b'{"update_id":1,"message":"x"}', b'{"update_id":1,"message":[]}',
        b'{"update_id":1,"message":{}}', b'{"update_id":1,"callback_query":{"id":"1"}}',
        b'{"update_id":NaN}', b'{"update_id":1,"x":Infinity}', b'{"update_id":1,"x":1e999}',
        b'{"update_id":1,"x":-1e999}', b"[" * 3000, b"{" * 3000,
        b'{"update_id":1,"x":' + b"[" * 100 + b"]" * 100 + b"}",
        b'{"update_id":1,"x":' + b"[" * 5000 + b"]" * 5000 + b"}",
        b'{"update_id":1,"x":' + b"9" * 5000 + b"}"]


def junk_updates(rng: random.Random, n: int) -> list[bytes]:
    """Updates whose fields have the wrong shape, values out of range, or text no database
    can store (each gets its own update id)."""
    odd: list[object] = [None, "", "x", "\x00", "a\x00b", "\ud800", "💥" * 50, -1, 0, 2**63,
                         2**63 - 1, -(2**63), 10**30, 1.5, True, [], {}, [[[]]], {"a": {}},
                         "x" * 70_000]
    user = {"id": 1, "is_bot": False, "first_name": "Ann"}
    group = {"id": GROUP, "type": "supergroup", "title": "Probed"}
    found = []
    for i in range(n):
        uid = 500_000 + i
        shape = rng.choice(["press", "text", "chat", "from", "id", "entities", "reply",
                            "joined", "left", "member", "topic", "migrate", "thread"])
        value = rng.choice(odd)
        body = text(uid, "/newgame", chat=dict(group))
        message = body["message"]
        if shape == "press":
            body = press(uid, value)
        elif shape == "text":
            message["text"] = value
        elif shape == "chat":
            message["chat"] = {"id": value, "type": rng.choice(["private", value])}
        elif shape == "from":
            message["from"] = {"id": value, "is_bot": False, "first_name": value}
        elif shape == "id":
            body = update(value if not isinstance(value, str) else uid, message=value)
        elif shape == "entities":
            message["entities"] = [{"type": value, "offset": value, "length": 8}]
        elif shape == "reply":
            message["reply_to_message"] = {"message_id": value, "date": 0, "chat": group,
                                           "from": {**user, "id": value}}
        elif shape == "joined":
            message["new_chat_members"] = [{**user, "first_name": value}]
        elif shape == "left":
            message["left_chat_member"] = {**user, "id": value}
        elif shape == "member":
            old = {"status": "member", "user": user}
            body = update(uid, chat_member={
                "chat": group, "from": user, "date": 0, "old_chat_member": old,
                "new_chat_member": {"status": value, "user": {**user, "id": value}}})
        elif shape == "topic":
            message["forum_topic_created"] = {"name": value, "icon_color": 1}
        elif shape == "migrate":
            message["migrate_to_chat_id"] = value
        else:
            message["message_thread_id"] = value
            message["is_topic_message"] = value
        found.append(json.dumps(body, ensure_ascii=rng.random() < 0.5).encode(
            "utf-8", "surrogatepass"))
    return found


async def probe_webhook(port: int, findings: Findings, rng: random.Random,
                        fuzz: int) -> None:
    hook = {"X-Telegram-Bot-Api-Secret-Token": SECRET, "Content-Type": "application/json"}
    valid = json.dumps(text(400_000, "/help")).encode()
    for headers in ({}, {"X-Telegram-Bot-Api-Secret-Token": ""},
                    {"X-Telegram-Bot-Api-Secret-Token": SECRET.upper()},
                    {"X-Telegram-Bot-Api-Secret-Token": SECRET[:-1]},
                    {"X-Telegram-Bot-Api-Secret-Token": SECRET + "\t" + SECRET},
                    {"X-Telegram-Bot-Api-Secret-Token": "x" * 8000}):
        # (a header's surrounding blanks are no part of its value in HTTP: not tried)
        findings.saw(f"webhook secret {headers!r:.60}",
                     await raw(port, "POST", "/hook", headers, valid), allowed=[403, 400])
    for body in JUNK + junk_updates(rng, fuzz):
        findings.saw(f"webhook body {body[:60]!r}", await raw(port, "POST", "/hook", hook, body),
                     allowed=[200])
    findings.saw("webhook 10 MB announced",
                 await raw(port, "POST", "/hook", hook, valid, announce=10 * 2**20),
                 allowed=[413])
    findings.saw("webhook 2 MiB sent", await raw(port, "POST", "/hook", hook,
                                                 b" " * (2 * 2**20)), allowed=[413])
    findings.saw("webhook GET", await raw(port, "GET", "/hook", hook), allowed=[405])


def auth(token: str, user_id: int) -> dict[str, str]:
    return {"Authorization": "tma " + init_data(token, user_id, "X")}


async def probe_miniapp(port: int, token: str, findings: Findings) -> None:
    base = f"http://127.0.0.1:{port}/app/api/"
    async with httpx.AsyncClient(timeout=10) as http:
        # Outsiders: none of a game's or a chat's pages, by any path.
        for user in (OUTSIDER, OTHER_MEMBER):
            for path in PROTECTED:
                response = await http.get(base + path, headers=auth(token, user))
                findings.saw(f"user {user} GET {path}", response.status_code, allowed=[403])
                if set(response.json()) != {"error", "message"}:
                    findings.violations.append(f"user {user} read {path}: {response.text}")
            stale = await http.post(base + "game/1/move", headers=auth(token, user),
                                    json={"version": 0, "action": {"kind": "bid",
                                                                   "amount": 1}})
            findings.saw(f"user {user} stale move", stale.status_code, allowed=[403])
            if set(stale.json()) != {"error", "message"}:
                findings.violations.append(f"user {user} read the table by a stale move")
        # The same ids, spelt otherwise.
        for path in ("game/01", "game/+1", "game/1.0", "game/%31", "game/1%00", "game/1/",
                     "game//1", "game/1/../1", "game/%2e%2e/chat/-100411",
                     "game/99999999999999999999", "game/-1", "game/\u0661",
                     f"chat/{GROUP}%00", f"chat/0{abs(GROUP)}", f"chat/%2D{abs(GROUP)}",
                     f"chat/{GROUP}/standings?period=season&period=week",
                     f"profile/1?chat={GROUP}&chat={OTHER_GROUP}", f"profile/1?chat=-0{GROUP}",
                     "replay/1?x=\x00", "profile/99999999999999999999"):
            status = await raw(port, "GET", "/app/api/" + quote(path, safe="/?=&%-+."),
                               auth(token, OUTSIDER))
            findings.saw(f"outsider GET {path!r}", status, allowed=[400, 403, 404, 405])
        # Forged or odd initData.
        now = int(time.time())
        for label, value in (
                ("none", None), ("empty", "tma "), ("garbage", "tma x=1&hash=00"),
                ("other bot", "tma " + init_data("1:other", 1, "Ann")),
                ("old", "tma " + init_data(token, 1, "Ann", auth_date=now - 90_000)),
                ("future", "tma " + init_data(token, 1, "Ann", auth_date=now + 3600)),
                ("huge", "tma " + "a" * 60_000),
                ("user list", "tma " + sign({"auth_date": str(now), "user": "[1]"}, token)),
                ("user deep", "tma " + sign({"auth_date": str(now),
                                             "user": "[" * 3000 + "]" * 3000}, token)),
                ("user id 10^30", "tma " + sign({"auth_date": str(now),
                                                 "user": '{"id":' + "1" + "0" * 30 + "}"},
                                                token)),
                ("repeated", "tma " + init_data(token, 1, "Ann") + "&user=%7B%22id%22%3A2%7D"),
                ("bad auth_date", "tma " + sign({"auth_date": "9" * 40,
                                                 "user": '{"id":1}'}, token))):
            headers = {} if value is None else {"Authorization": value}
            for path in ("me", "game/1"):
                status = await raw(port, "GET", "/app/api/" + path, headers)
                findings.saw(f"initData {label} GET {path}", status, allowed=[401, 403, 404])
        # Move bodies that are no move, from a player.
        player = auth(token, 1)
        bodies = [b"", b"[" * 3000, b"{" * 3000, b'{"version":1,"action":' + b"[" * 1500,
                  b'{"version":NaN,"action":{"kind":"bid"}}', b'{"version":1e999}',
                  b'{"version":' + b"9" * 5000 + b"}", b"\xff\xfe", b'"x"', b"null",
                  json.dumps({"version": 1, "action": {"kind": "bid\x00", "amount": 1}}).encode(),
                  json.dumps({"version": 1, "action": {"kind": "bid", "amount": 10**30}}).encode(),
                  json.dumps({"version": 10**18, "action": {"kind": "bid",
                                                            "amount": -5}}).encode(),
                  json.dumps({"version": 1, "action": {"kind": "guess",
                                                       "guess": "x" * 3000}}).encode(),
                  json.dumps({"version": 1, "action": {"kind": "play",
                                                       "cards": ["x"] * 500}}).encode()]
        for body in bodies:
            response = await http.post(base + "game/1/move", headers=player, content=body)
            findings.saw(f"move body {body[:50]!r}", response.status_code,
                         allowed=[400, 409, 413])
        findings.saw("move 10 MB announced", await raw(
            port, "POST", "/app/api/game/1/move", player, b"{}", announce=10 * 2**20),
            allowed=[413])
        # Static files and the page.
        for path in ("/app/static/../../telegram_app/settings.py", "/app/static/%2e%2e/x",
                     "/app/static/..%2f..%2fpyproject.toml", "/app/static/app.js%00.txt"):
            findings.saw(f"GET {path}", await raw(port, "GET", path), allowed=[400, 404])
        page = await http.get(f"http://127.0.0.1:{port}/app/")
        policy = page.headers.get("content-security-policy", "")
        if "frame-ancestors https://web.telegram.org" not in policy:
            findings.violations.append(f"the page's CSP is {policy!r}")


async def run(fuzz: int, seed: int) -> Findings:
    findings = Findings()
    errors = Errors()
    logging.getLogger().addHandler(errors)
    rng = random.Random(seed)
    async with throwaway_database() as db:
        url = db.engine.url.render_as_string(hide_password=False)
        async with bot_table(url, GROUP, "Probed", ["Ann", "Bob", "Cat"]) as (
                api, players, runner):
            await start_game(api, players, GROUP)
            service = runner.app.bot_data["coyote"].service
            await service.open_lobby(OTHER_GROUP, "Elsewhere", 0, UserRef(OTHER_MEMBER, "Eve"),
                                     kind="coyote")
            await api.settle()
            async with db.sessions() as session:
                stored = await session.scalar(select(func.count()).select_from(InboxItem))
            async with served(runner.app) as port:
                await probe_webhook(port, findings, rng, fuzz)
                await probe_miniapp(port, api.token, findings)
                await api.settle()
            async with db.sessions() as session:
                junk = set(await session.scalars(select(InboxItem.id).where(
                    InboxItem.id >= 500_000)))
                after = await session.scalar(select(func.count()).select_from(InboxItem))
            print(f"inbox: {stored} before, {after} after; fuzzed updates stored: {len(junk)}"
                  " (well-formed ones are stored and handled as any update)")
    logging.getLogger().removeHandler(errors)
    findings.violations += [f"log: {line}" for line in errors.lines]
    return findings


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--fuzz", type=int, default=300, help="fuzzed webhook updates")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    # (a warning per junk body)
    logging.getLogger("telegram_app.transport.web").setLevel(logging.ERROR)
    logging.getLogger("telegram_app.transport.intake.receiving").setLevel(logging.ERROR)
    findings = asyncio.run(run(args.fuzz, args.seed))
    print(f"{findings.sent} requests; statuses: {dict(sorted(findings.statuses.items()))}")
    for line in findings.violations:
        print("VIOLATION", line)
    print("no violation" if not findings.violations else f"{len(findings.violations)} "
          "violations")
    raise SystemExit(1 if findings.violations else 0)


if __name__ == "__main__":
    main()
