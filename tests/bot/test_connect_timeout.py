"""A request that never left (connecting to the Bot API timed out) is a passing fault: the
message surely did not arrive, so its delivery stays untold and is sent again; a read that
timed out after the request left may have arrived, and is not sent again."""

from __future__ import annotations

import asyncio
import socket

from telegram import Bot

from telegram_app.transport.aiohttp_request import AiohttpRequest
from telegram_app.transport.messenger import Messenger


class _Chats:
    async def migrate_chat(self, old_chat_id: int, new_chat_id: int) -> None: ...

    async def set_can_message(self, user_id: int, value: bool) -> None: ...

    async def set_bot_present(self, chat_id: int, present: bool) -> None: ...


async def _send_to(port: int, *, read_timeout: float = 5.0) -> object:
    request = AiohttpRequest(8, connect_timeout=0.5, pool_timeout=0.2, read_timeout=read_timeout)
    bot = Bot("123:ABC", base_url=f"http://127.0.0.1:{port}/bot", request=request)
    await request.initialize()
    try:
        return await Messenger(bot, _Chats()).send_result(-100, "hello")
    finally:
        await request.shutdown()


async def test_a_connect_timeout_is_lost_not_refused() -> None:
    # A listening socket whose backlog is full: the kernel drops new connections' SYNs.
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(0)
    port = server.getsockname()[1]
    fillers = []
    try:
        for _ in range(4):
            filler = socket.socket()
            filler.setblocking(False)
            try:
                filler.connect(("127.0.0.1", port))
            except BlockingIOError:
                pass
            fillers.append(filler)
        await asyncio.sleep(0.1)
        assert await _send_to(port) == "lost"
    finally:
        for filler in fillers:
            filler.close()
        server.close()


async def test_a_read_timeout_may_have_arrived() -> None:
    async def silent(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.read(1)  # (the request arrived; no answer comes)
        await asyncio.sleep(5)
        writer.close()

    server = await asyncio.start_server(silent, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    async with server:
        assert await _send_to(port, read_timeout=0.3) == "refused"
