"""Prometheus metrics of the bot (prometheus-client), served at ``/metrics`` by
:mod:`telegram_app.transport.web`. Counters live in one registry per process; with several workers
Prometheus scrapes each (or sums them).

- ``coyote_updates_total{kind}``: updates handled (``press``, ``command``, ``text``, ``other``);
  ``coyote_updates_dropped_total{reason}``: repeats and outage answers.
- ``coyote_press_seconds``: from a press's arrival to the end of its handler (its answer,
  the move's commit and what the handler sends).
- ``coyote_bot_api_calls_total{method}``, ``coyote_bot_api_errors_total{method,error}``.
- ``coyote_rate_limit_waits_total``: ``RetryAfter`` answers (flood control) met.
- ``coyote_active_games``: lobbies and running games (read at scrape time).
- ``coyote_sweeper_lag_seconds``: seconds since the last finished sweep.
"""

from __future__ import annotations

import time
from typing import Any

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram

REGISTRY = CollectorRegistry()

UPDATES = Counter("coyote_updates", "Updates handled", ["kind"], registry=REGISTRY)
DROPPED = Counter("coyote_updates_dropped", "Updates not handled", ["reason"],
                  registry=REGISTRY)
PRESS_SECONDS = Histogram("coyote_press_seconds", "Press arrival to handler end",
                          buckets=(0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30),
                          registry=REGISTRY)
API_CALLS = Counter("coyote_bot_api_calls", "Bot API calls", ["method"], registry=REGISTRY)
API_ERRORS = Counter("coyote_bot_api_errors", "Bot API calls that failed", ["method", "error"],
                     registry=REGISTRY)
RATE_LIMIT_WAITS = Counter("coyote_rate_limit_waits", "Flood-control waits (RetryAfter)",
                           registry=REGISTRY)
ACTIVE_GAMES = Gauge("coyote_active_games", "Lobbies and running games", registry=REGISTRY)
SWEEPER_LAG = Gauge("coyote_sweeper_lag_seconds", "Seconds since the last finished sweep",
                    registry=REGISTRY)

_last_sweep: list[float] = []  # time.monotonic() of the last finished sweep (empty: none yet)


def handled(update: Any, started: float | None) -> None:
    """Count a handled update by its kind, and a press's time from its arrival (``started``,
    ``time.monotonic()``) to now."""
    message = update.message
    if update.callback_query is not None:
        kind = "press"
    elif message is not None and message.text is not None:
        kind = "command" if message.text.startswith("/") else "text"
    else:
        kind = "other"
    UPDATES.labels(kind).inc()
    if kind == "press" and started is not None:
        PRESS_SECONDS.observe(time.monotonic() - started)


def swept() -> None:
    """Record that a sweep finished now."""
    _last_sweep[:] = [time.monotonic()]


def sweep_age() -> float | None:
    """Seconds since the last finished sweep, or ``None`` before the first."""
    return time.monotonic() - _last_sweep[0] if _last_sweep else None
