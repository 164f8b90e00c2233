"""``python -m bench.bot_process``: the bot exactly as ``python -m telegram_app`` runs it (its
``LaneProcessor``, its settings from the environment), for ``bench/throughput_bench.py``, with
two optional measuring hooks that change nothing the bot does:

- ``BENCH_PROFILE=path``: cProfile the whole process, written to ``path`` (pstats) at exit.
- ``SIGUSR2``: log the stack of every asyncio task (what a stalled bot waits for).
- ``BENCH_XACTS=path``: count the database transactions the bot ends (commit or rollback of
  a connection that began one: what ``pg_stat_database`` counts, without its lag), in all
  (``total``), the statements it executes (``statements``, and by their start:
  ``statement: …``), the transactions by their first statement (``first: …``), and, when
  profiling, the
  transactions by the innermost function of ``league/`` or ``telegram_app/`` on the
  awaiting task's coroutine chain where it can be found; the first ``SIGUSR1`` starts the
  count (and the profile) again, the second writes it to ``path`` (JSON), as does the exit.
"""

from __future__ import annotations

import asyncio
import cProfile
import json
import os
import signal
import sys
from collections import Counter
from typing import Any

from telegram_app.app import main

_OURS = ("/league/", "/telegram_app/")


def _origin() -> str:
    """Our innermost function on the current task's await chain, with the outermost one."""
    try:
        task = asyncio.current_task()
    except RuntimeError:
        task = None
    if task is None:
        return "?"
    names: list[str] = []
    coro: Any = task.get_coro()
    while coro is not None:
        code = getattr(coro, "cr_code", None) or getattr(coro, "ag_code", None)
        if code is not None and any(part in code.co_filename for part in _OURS):
            names.append(f"{code.co_filename.rsplit('/', 2)[-2]}/"
                         f"{code.co_filename.rsplit('/', 1)[-1]}:{code.co_name}")
        coro = getattr(coro, "cr_await", None) or getattr(coro, "ag_await", None)
    if not names:
        return "?"
    return names[-1] if len(names) == 1 else f"{names[-1]} < {names[0]}"


def _count_transactions(path: str, profiler: cProfile.Profile | None = None) -> None:
    from sqlalchemy import event
    from sqlalchemy.engine import Engine

    counts: Counter[str] = Counter()
    signals = 0

    def ended(conn: Any, *_: Any) -> None:
        counts["total"] += 1
        # what the transaction was for: its first statement (cheap; greenlets hide callers)
        counts[f"first: {conn.info.pop('bench_first', '(none)')}"] += 1
        if profiler is not None:  # (walking the await chain costs time: only when profiling)
            counts[_origin()] += 1

    def executed(conn: Any, _cursor: Any, statement: str, *_: Any) -> None:
        counts["statements"] += 1
        text = " ".join(statement.split())[:90]
        counts[f"statement: {text[:60]}"] += 1
        conn.info.setdefault("bench_first", text)

    event.listen(Engine, "commit", ended)
    event.listen(Engine, "rollback", ended)
    event.listen(Engine, "before_cursor_execute", executed)

    def write() -> None:
        with open(path, "w") as out:
            json.dump(dict(counts.most_common()), out, indent=1)

    def measure(*_: Any) -> None:
        # The first SIGUSR1 starts the measuring window, the second ends it: the counts are
        # written then (the bot goes on working until it is stopped).
        nonlocal signals
        signals += 1
        if signals == 1:
            counts.clear()
            if profiler is not None:
                profiler.clear()
        elif signals == 2:
            write()

    signal.signal(signal.SIGUSR1, measure)

    import atexit

    atexit.register(lambda: signals >= 2 or write())


def _dump_tasks(*_: Any) -> None:
    import io

    try:
        tasks = asyncio.all_tasks(asyncio.get_event_loop())
    except RuntimeError:
        return
    out = io.StringIO()
    for task in tasks:
        task.print_stack(limit=12, file=out)
    print(f"--- {len(tasks)} tasks ---\n{out.getvalue()}", file=sys.stderr, flush=True)


if __name__ == "__main__":
    signal.signal(signal.SIGUSR2, _dump_tasks)
    xacts = os.environ.get("BENCH_XACTS")
    profile_path = os.environ.get("BENCH_PROFILE")
    profiler = cProfile.Profile() if profile_path else None
    if profiler is not None:
        # (the counts and the profile both start again when the bench starts measuring)
        signal.signal(signal.SIGUSR1, lambda *_: profiler.clear())
        if xacts:
            _count_transactions(xacts, profiler)  # its handler clears the profile too
        profiler.enable()
    elif xacts:
        _count_transactions(xacts)
    try:
        main()
    finally:
        if profiler is not None:
            profiler.disable()
            profiler.dump_stats(profile_path)
