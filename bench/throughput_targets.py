"""The throughput bench's targets, each judged "met", "missed" or "not measured" from a
setting's figures, for the printout and ``docs/benchmarks.md``'s table."""

from __future__ import annotations

import math
from dataclasses import dataclass

from bench.throughput_settings import Setting

ANSWER_P50, ANSWER_P95, KEYBOARD_P50 = 1.5, 2.5, 3.0  # in round trips
CALLS, GROUP_CALLS, XACTS = 3.0, 1.0, 3.0  # a move, in the group a move, a press
BUSY_RATE, BUSY_P95, BUSY_P95_MS = 0.10, 0.10, 100.0  # the busy group's effect on the others


@dataclass(frozen=True)
class Target:
    what: str  # the target, e.g. "press → answer p50 ≤ 1.5 round trips"
    figure: str  # today's figure, as shown
    met: bool | None  # None: not measured (a figure missing, or its base setting not run)

    @property
    def verdict(self) -> str:
        return {True: "met", False: "missed", None: "not measured"}[self.met]


def _ok(value: float, limit: float) -> bool | None:
    return None if math.isnan(value) else value <= limit


def targets(setting: Setting, f: dict[str, float],
            base: dict[str, float] | None) -> list[Target]:
    """The targets that apply to ``setting``, with its figures ``f`` (``base``: the figures of
    ``setting.base`` measured in the same invocation, if it was run)."""
    found = []
    rt = setting.delay
    if rt:
        for name, key, limit in (("press → answer p50", "press→answer p50", ANSWER_P50),
                                 ("press → answer p95", "press→answer p95", ANSWER_P95),
                                 ("press → next keyboard p50", "press→keyboard p50",
                                  KEYBOARD_P50)):
            ms, ratio = f[f"{key} ms"], f[f"{key} ×rt"]
            shown = f"{ms:.0f} ms = {ratio:.2f} round trips"
            if key == "press→keyboard p50":  # (its p95 has no target of its own: shown too)
                shown += (f" (p95 {f['press→keyboard p95 ms']:.0f} ms = "
                          f"{f['press→keyboard p95 ×rt']:.2f})")
            found.append(Target(
                f"{name} ≤ {limit:g} round trips ({limit * rt * 1000:.0f} ms)", shown,
                _ok(ratio, limit)))
    if setting.min_rate:
        rate = f["presses/s"]
        found.append(Target(f"presses/s ≥ {setting.min_rate:g}", f"{rate:.1f}",
                            None if math.isnan(rate) else rate >= setting.min_rate))
    if setting.base:
        if base is None:
            found.append(Target(f"one busy group changes the others' presses/s by "
                                f"< {BUSY_RATE:.0%}", f"– (“{setting.base}” not run)", None))
            found.append(Target(f"one busy group changes the others' press → keyboard p95 "
                                f"by < {BUSY_P95:.0%} + {BUSY_P95_MS:.0f} ms", "–", None))
        else:
            change = f["presses/s"] / base["presses/s"] - 1
            found.append(Target(
                f"one busy group changes the others' presses/s by < {BUSY_RATE:.0%}",
                f"{base['presses/s']:.2f} → {f['presses/s']:.2f} ({change:+.1%})",
                None if math.isnan(change) else abs(change) < BUSY_RATE))
            was, now = base["press→keyboard p95 ms"], f["press→keyboard p95 ms"]
            allowed = BUSY_P95 * was + BUSY_P95_MS
            found.append(Target(
                f"one busy group changes the others' press → keyboard p95 by "
                f"< {BUSY_P95:.0%} + {BUSY_P95_MS:.0f} ms",
                f"{was:.0f} → {now:.0f} ms ({now - was:+.0f} ms, allowed ±{allowed:.0f})",
                None if math.isnan(now - was) else abs(now - was) < allowed))
    for what, key, limit in (("rate-limited Bot API calls a move", "calls/move", CALLS),
                             ("rate-limited Bot API calls a move in the group", "group calls/move",
                              GROUP_CALLS),
                             ("database transactions a press", "xacts/press", XACTS)):
        found.append(Target(f"{what} ≤ {limit:g}", f"{f[key]:.2f}", _ok(f[key], limit)))
    return found
