"""initData validation (telegram_app.miniapp.initdata), pure: no server, no clock."""

from __future__ import annotations

import hashlib
import hmac
import json
from datetime import UTC, datetime, timedelta
from urllib.parse import parse_qsl, urlencode

import pytest

from telegram_app.miniapp.initdata import InitDataError, sign, validate

TOKEN = "123456:ABC-test-token"
NOW = datetime(2026, 5, 4, 9, 0, tzinfo=UTC)


def fields(**extra: str) -> dict[str, str]:
    base = {"auth_date": str(int(NOW.timestamp()) - 60), "query_id": "AAH",
            "user": json.dumps({"id": 42, "first_name": "Ann", "language_code": "en"}),
            "start_param": "g7"}
    base.update(extra)
    return base


def code_of(init_data: str | None, token: str = TOKEN, now: datetime = NOW) -> str:
    with pytest.raises(InitDataError) as info:
        validate(init_data, token, now)
    return info.value.code


def test_valid_init_data_gives_the_signed_user() -> None:
    user = validate(sign(fields(), TOKEN), TOKEN, NOW)
    assert (user.id, user.first_name, user.language_code, user.start_param) == \
        (42, "Ann", "en", "g7")


def test_the_algorithm_is_telegrams_written_out() -> None:
    # Independent of sign(): secret = HMAC_SHA256(key="WebAppData", msg=token); the hash is
    # the hex HMAC of the sorted key=value lines (hash left out) with that secret.
    data = fields()
    check = "\n".join(f"{k}={v}" for k, v in sorted(data.items()))
    secret = hmac.new(b"WebAppData", TOKEN.encode(), hashlib.sha256).digest()
    digest = hmac.new(secret, check.encode(), hashlib.sha256).hexdigest()
    assert validate(urlencode({**data, "hash": digest}), TOKEN, NOW).id == 42


def test_forged_signature_is_refused() -> None:
    signed = dict(parse_qsl(sign(fields(), TOKEN)))
    signed["user"] = json.dumps({"id": 43, "first_name": "Mallory"})  # another user, same hash
    assert code_of(urlencode(signed)) == "bad_hash"
    signed = dict(parse_qsl(sign(fields(), TOKEN)))
    signed["hash"] = "0" * 64
    assert code_of(urlencode(signed)) == "bad_hash"


def test_wrong_bot_token_is_refused() -> None:
    assert code_of(sign(fields(), "999:other-bot")) == "bad_hash"


def test_expired_init_data_is_refused() -> None:
    old = fields(auth_date=str(int((NOW - timedelta(days=1, seconds=1)).timestamp())))
    assert code_of(sign(old, TOKEN)) == "expired"
    assert validate(sign(old, TOKEN), TOKEN, NOW - timedelta(seconds=2)).id == 42
    future = fields(auth_date=str(int((NOW + timedelta(hours=1)).timestamp())))
    assert code_of(sign(future, TOKEN)) == "expired"
    no_date = fields()
    del no_date["auth_date"]
    assert code_of(sign(no_date, TOKEN)) == "expired"


def test_missing_user_is_refused() -> None:
    no_user = fields()
    del no_user["user"]
    assert code_of(sign(no_user, TOKEN)) == "no_user"
    assert code_of(sign(fields(user="not json"), TOKEN)) == "no_user"
    assert code_of(sign(fields(user=json.dumps({"id": "42"})), TOKEN)) == "no_user"
    # (signed, so only Telegram could send them: still no 500 from the database)
    assert code_of(sign(fields(user=json.dumps({"id": 2**63})), TOKEN)) == "no_user"
    assert code_of(sign(fields(user="[" * 3000 + "]" * 3000), TOKEN)) in ("no_user",
                                                                         "malformed")
    assert code_of(sign(fields(user="[" * 1500), TOKEN)) == "no_user"


def test_missing_hash_and_junk_are_refused() -> None:
    assert code_of(urlencode(fields())) == "no_hash"
    assert code_of(None) == "missing"
    assert code_of("") == "missing"
    assert code_of("%%%&&&") in ("malformed", "no_hash")
    assert code_of("a=1&a=2&hash=x") == "malformed"
    assert code_of("x" * 10_000) == "malformed"


def test_the_error_never_carries_the_data() -> None:
    data = sign(fields(), "999:other-bot")
    with pytest.raises(InitDataError) as info:
        validate(data, TOKEN, NOW)
    assert str(info.value) == "bad_hash" and "Ann" not in repr(info.value)
