"""Telegram Mini App ``initData``: checking its signature and reading the user from it.

Pure (no I/O, no clock: the caller passes ``now``). The algorithm is the one Telegram's Mini
Apps documentation prescribes ("Validating data received via the Mini App",
core.telegram.org/bots/webapps):

- ``initData`` is a URL-encoded query string; its ``hash`` field is the signature;
- the data-check-string is every other field, decoded, as ``key=value`` lines sorted by key
  and joined with ``\\n`` (the newer ``signature`` field, Telegram's Ed25519 signature for
  third parties, is a field like any other here);
- ``secret_key = HMAC_SHA256(key="WebAppData", msg=bot_token)``;
- the hash must equal ``hex(HMAC_SHA256(key=secret_key, msg=data_check_string))``, compared
  in constant time (:func:`hmac.compare_digest`).

``auth_date`` (Unix seconds) must be at most :data:`MAX_AGE` old. The user id is read from
the signed ``user`` field and from nothing else. The raw ``initData`` is a credential for a
day: it is never logged (the errors below carry a reason code, never the data).
"""

from __future__ import annotations

import hashlib
import hmac
import json
from dataclasses import dataclass
from datetime import datetime, timedelta
from urllib.parse import parse_qsl, urlencode

MAX_AGE = timedelta(days=1)
"""How long a signed ``initData`` is accepted after its ``auth_date``."""
FUTURE_SLACK = timedelta(minutes=5)
"""Clock skew allowed for an ``auth_date`` slightly ahead of ours."""
MAX_LENGTH = 8192
"""Longer input is refused before it is parsed (Telegram's is well under 2 KB)."""


class InitDataError(Exception):
    """``initData`` refused; ``code``: ``missing``, ``malformed``, ``no_hash``, ``bad_hash``,
    ``expired``, ``no_user``."""

    def __init__(self, code: str) -> None:
        super().__init__(code)
        self.code = code


@dataclass(frozen=True)
class WebAppUser:
    """The signed user: Telegram ``id``, names, ``language_code``; ``start_param`` is the
    ``startapp`` value the Mini App was opened with (``None`` without one)."""

    id: int
    first_name: str
    last_name: str | None
    username: str | None
    language_code: str | None
    auth_date: datetime
    start_param: str | None


def _secret_key(bot_token: str) -> bytes:
    return hmac.new(b"WebAppData", bot_token.encode(), hashlib.sha256).digest()


def _check_string(fields: dict[str, str]) -> str:
    return "\n".join(f"{key}={fields[key]}" for key in sorted(fields) if key != "hash")


def sign(fields: dict[str, str], bot_token: str) -> str:
    """``fields`` as an ``initData`` string signed with ``bot_token`` (what Telegram's client
    sends; the tests and the demo make their own with it)."""
    digest = hmac.new(_secret_key(bot_token), _check_string(fields).encode(),
                      hashlib.sha256).hexdigest()
    return urlencode({**fields, "hash": digest})


def validate(init_data: str | None, bot_token: str, now: datetime) -> WebAppUser:
    """The user of a genuine, fresh ``initData``; raises :class:`InitDataError`. ``now``:
    aware UTC."""
    if not init_data:
        raise InitDataError("missing")
    if len(init_data) > MAX_LENGTH:
        raise InitDataError("malformed")
    try:
        pairs = parse_qsl(init_data, keep_blank_values=True, strict_parsing=True)
    except ValueError:
        raise InitDataError("malformed") from None
    fields = dict(pairs)
    if len(fields) != len(pairs):  # a repeated key: which one was signed is unclear
        raise InitDataError("malformed")
    sent = fields.get("hash")
    if not sent:
        raise InitDataError("no_hash")
    expected = hmac.new(_secret_key(bot_token), _check_string(fields).encode(),
                        hashlib.sha256).hexdigest()
    if not hmac.compare_digest(expected.encode(), sent.encode()):
        raise InitDataError("bad_hash")
    try:
        auth_date = datetime.fromtimestamp(int(fields["auth_date"]), now.tzinfo)
    except (KeyError, ValueError, OverflowError, OSError):
        raise InitDataError("expired") from None
    if not now - MAX_AGE <= auth_date <= now + FUTURE_SLACK:
        raise InitDataError("expired")
    try:
        user = json.loads(fields["user"])
        user_id = user["id"]
    except (KeyError, ValueError, TypeError, RecursionError):
        raise InitDataError("no_user") from None
    if not isinstance(user_id, int) or isinstance(user_id, bool) or \
            not 0 < user_id < 2**63:  # (ids are 64-bit in the database)
        raise InitDataError("no_user")

    def text(key: str) -> str | None:
        value = user.get(key)
        return value if isinstance(value, str) else None

    return WebAppUser(user_id, text("first_name") or str(user_id), text("last_name"),
                      text("username"), text("language_code"), auth_date,
                      fields.get("start_param") or None)


def claimed_language(init_data: str | None) -> str | None:
    """The ``language_code`` an ``initData`` names, signed or not (``None``: none readable).
    Only to word a refusal of that very data in the language of its app: nothing else is
    ever read from data :func:`validate` refused."""
    if not init_data or len(init_data) > MAX_LENGTH:
        return None
    try:
        user = json.loads(dict(parse_qsl(init_data)).get("user") or "null")
    except (ValueError, RecursionError):
        return None
    code = user.get("language_code") if isinstance(user, dict) else None
    return code if isinstance(code, str) else None
