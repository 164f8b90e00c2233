"""The computer players of both games use no global random or clock, nor the hash seed."""

from __future__ import annotations

import os
import random
import subprocess
import sys
from pathlib import Path

from tests.engine.ai_fairness_helpers import LEVELS, play_coyote, play_koira

ROOT = Path(__file__).resolve().parents[2]


def test_coyote_and_koira_ais_use_no_global_random_or_clock(monkeypatch) -> None:
    """The global ``random`` functions and the clock are never used by a decision."""
    import time

    def boom(*_a, **_k):
        raise AssertionError("global random or clock used")

    for name in ("random", "randint", "randrange", "choice", "choices", "shuffle", "sample",
                 "uniform", "getrandbits", "gauss"):
        monkeypatch.setattr(random, name, boom)
    for name in ("time", "perf_counter", "monotonic", "process_time", "thread_time"):
        monkeypatch.setattr(time, name, boom)
    for level in LEVELS:
        play_coyote("classic", 5, False, 7, [level] * 5, lambda *a: None, max_steps=60)
        play_coyote("classic", 5, True, 8, [level] * 5, lambda *a: None, max_steps=60)
        play_coyote("feathers", 5, True, 9, [level] * 5, lambda *a: None, max_steps=60)
        play_koira(5, 3, {}, [level] * 5, lambda *a: None, max_steps=300)


_DETERMINISM_SCRIPT = """
import random, hashlib
from engine.coyote import CoyoteGame
from engine.coyote.ai_levels import choose as cc
from engine.koira import KoiraGame
from engine.koira.ai_levels import choose as kc
out = []
for level in ("easy", "normal", "hard"):
    for edition, specials in (("classic", False), ("classic", True), ("feathers", True),
                              ("poker-deck", False)):
        g = CoyoteGame(); s = g.new_state(6, 11, {"edition": edition, "specials": specials})
        for step in range(120):
            if s["over"]:
                break
            seat = s["turn"]; a = cc(g.view(s, seat), random.Random(step), level)
            out.append(repr(a)); s, _ = g.apply(s, seat, a)
    g = KoiraGame(); s = g.new_state(5, 11, {})
    for step in range(400):
        if s["over"]:
            break
        seat = s["turn"]; a = kc(g.view(s, seat), random.Random(step), level)
        out.append(repr(a)); s, _ = g.apply(s, seat, a)
print(hashlib.sha256("|".join(out).encode()).hexdigest())
"""


def test_decisions_do_not_depend_on_the_process_hash_seed() -> None:
    """The same games, decided in two processes with different ``PYTHONHASHSEED`` (set
    iteration order), give the same actions: deterministic for a seed across restarts."""
    got = set()
    for hash_seed in ("1", "2"):
        env = dict(os.environ, PYTHONHASHSEED=hash_seed)
        run = subprocess.run([sys.executable, "-c", _DETERMINISM_SCRIPT], cwd=ROOT, env=env,
                             capture_output=True, text=True, timeout=240, check=True)
        got.add(run.stdout.strip())
    assert len(got) == 1
