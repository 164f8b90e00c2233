"""PTB's networking backend on aiohttp instead of httpx (issue 10: a press's CPU).

python-telegram-bot lets a bot bring its own HTTP client through
:class:`telegram.request.BaseRequest` (``ApplicationBuilder.request`` and
``get_updates_request``); its own is httpx. Measured on this machine against a local server
(``bench`` notes in the README), one Bot API call costs the client about 0.7 ms of CPU
through httpx and about 0.15 ms through aiohttp, and a press makes four or five calls. The
PTB team's ``ptbcontrib.aiohttp_request`` does the same (it is not on PyPI, so it is not a
dependency); this one keeps only what the bot uses.

Timeouts map onto aiohttp's: ``connect`` (a free connection of the pool plus connecting:
PTB's pool and connect timeouts together), ``sock_connect`` (connecting) and ``sock_read``
(the wait for the answer: PTB's read timeout, which for ``getUpdates`` includes the long
poll). aiohttp has no write timeout; a request's body is small (media go out in one
multipart body on the same socket). Errors are PTB's: :class:`telegram.error.TimedOut` for
any timeout, :class:`telegram.error.NetworkError` for anything else the client raises.
"""

from __future__ import annotations

from typing import Any

import aiohttp
from telegram._utils.defaultvalue import DefaultValue
from telegram._utils.types import ODVInput
from telegram.error import NetworkError, TimedOut
from telegram.request import BaseRequest, RequestData


class AiohttpRequest(BaseRequest):
    """A :class:`~telegram.request.BaseRequest` on one ``aiohttp.ClientSession`` holding at
    most ``connection_pool_size`` connections. Timeouts in seconds (``None``: none), the
    defaults PTB's ``HTTPXRequest`` has."""

    __slots__ = ("_connect", "_limit", "_pool", "_read", "_session")

    def __init__(self, connection_pool_size: int = 1, *, read_timeout: float | None = 5.0,
                 connect_timeout: float | None = 5.0, pool_timeout: float | None = 1.0
                 ) -> None:
        self._limit = connection_pool_size
        self._read = read_timeout
        self._connect, self._pool = connect_timeout, pool_timeout
        self._session: aiohttp.ClientSession | None = None

    @property
    def read_timeout(self) -> float | None:
        """The default read timeout (PTB adds the long poll's to it for ``getUpdates``)."""
        return self._read

    async def initialize(self) -> None:
        """Open the client session (again, after a shutdown)."""
        if self._session is None or self._session.closed:
            self._session = aiohttp.ClientSession(
                connector=aiohttp.TCPConnector(limit=self._limit),
                timeout=aiohttp.ClientTimeout(total=None),
                headers={"User-Agent": self.USER_AGENT})

    async def shutdown(self) -> None:
        """Close the client session and its connections."""
        if self._session is not None and not self._session.closed:
            await self._session.close()

    async def do_request(
        self,
        url: str,
        method: str,
        request_data: RequestData | None = None,
        read_timeout: ODVInput[float] = BaseRequest.DEFAULT_NONE,
        write_timeout: ODVInput[float] = BaseRequest.DEFAULT_NONE,
        connect_timeout: ODVInput[float] = BaseRequest.DEFAULT_NONE,
        pool_timeout: ODVInput[float] = BaseRequest.DEFAULT_NONE,
    ) -> tuple[int, bytes]:
        """See :meth:`telegram.request.BaseRequest.do_request`: ``(HTTP status, body)``;
        raises ``RuntimeError`` before :meth:`initialize`, ``TimedOut``, ``NetworkError``."""
        if self._session is None or self._session.closed:
            raise RuntimeError("This AiohttpRequest is not initialized!")
        read = self._read if isinstance(read_timeout, DefaultValue) else read_timeout
        connect = self._connect if isinstance(connect_timeout, DefaultValue) \
            else connect_timeout
        pool = self._pool if isinstance(pool_timeout, DefaultValue) else pool_timeout
        timeout = aiohttp.ClientTimeout(
            total=None, sock_read=read, sock_connect=connect,
            connect=None if connect is None or pool is None else connect + pool)
        body, headers = _body(request_data)
        try:
            async with self._session.request(method, url, data=body, headers=headers,
                                             timeout=timeout) as response:
                return response.status, await response.read()
        except TimeoutError as err:  # (aiohttp's timeouts are TimeoutErrors)
            raise TimedOut from err
        except aiohttp.ClientError as err:
            raise NetworkError(f"aiohttp.{type(err).__name__}: {err}") from err


_JSON = {"Content-Type": "application/json"}


def _body(request_data: RequestData | None) -> tuple[Any, dict[str, str] | None]:
    """The request's body and its headers: JSON (PTB's ``RequestData.json_payload``, which
    the Bot API takes as it takes a form: issue 10, a form's URL-encoding of a message's text
    and keyboard cost more CPU than the rest of the call), or multipart when it uploads
    files."""
    if request_data is None:
        return None, None
    files = request_data.multipart_data
    if not files:
        return request_data.json_payload, _JSON
    fields = request_data.json_parameters
    form = aiohttp.FormData()
    for name, value in fields.items():
        form.add_field(name, value)
    for name, part in files.items():
        filename, content, *mimetype = part
        form.add_field(name, content, filename=filename,
                       content_type=mimetype[0] if mimetype else None)
    return form, None

