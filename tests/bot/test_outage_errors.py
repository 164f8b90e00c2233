"""Which database errors are an outage (the outage answer, one warning) and which are not:
a lock wait that timed out, a deadlock or a cancelled statement reached a live server."""

from __future__ import annotations

import psycopg
import psycopg.errors
from sqlalchemy import exc as sa_exc

from telegram_app.transport.outage import is_outage


def _wrapped(orig: Exception) -> sa_exc.DBAPIError:
    return sa_exc.OperationalError("SELECT 1", {}, orig)


def test_a_lost_connection_is_an_outage() -> None:
    assert is_outage(_wrapped(psycopg.OperationalError("server closed the connection")))
    assert is_outage(_wrapped(psycopg.errors.TooManyConnections("too many clients")))
    assert is_outage(_wrapped(psycopg.errors.AdminShutdown("terminating connection")))
    assert is_outage(ConnectionRefusedError())


def test_a_live_servers_refusal_is_not_an_outage() -> None:
    assert not is_outage(_wrapped(psycopg.errors.LockNotAvailable("lock timeout")))
    assert not is_outage(_wrapped(psycopg.errors.DeadlockDetected("deadlock detected")))
    assert not is_outage(_wrapped(psycopg.errors.QueryCanceled("statement timeout")))
    assert not is_outage(_wrapped(psycopg.errors.SerializationFailure("could not serialize")))
