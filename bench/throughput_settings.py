"""The settings the throughput bench runs (``--only`` picks among them by name): the Bot
API's delay, the groups, the rate limits, how long players think, and the targets that are
a setting's own (a presses/s floor, the base run a busy group is compared with)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Setting:
    name: str
    delay: float
    groups: int
    limits: bool
    think: float = 0.0  # seconds a player waits before pressing (0: at once)
    busy: int = 0  # groups added that press at once (think 0)
    min_rate: float = 0.0  # the presses/s target of this setting (0: none)
    base: str = ""  # the setting a busy group must not change by much (see targets)


QUIET = "50 ms, limits on, 20 groups (a move every 3 s)"
PACED = "think 3 s (a bot's pace), no limits, 50 groups, calls of 0.15 s"
"""(Its name lacks "150 ms", which selects the main setting alone.)"""
SETTINGS = [
    Setting("no delay, no limits, 10 groups", 0.0, 10, False),
    Setting("150 ms, no limits, 50 groups", 0.15, 50, False, min_rate=15.0),
    Setting(QUIET, 0.05, 20, True, think=3.0),
    Setting("the same plus one busy group", 0.05, 20, True, think=3.0, busy=1, base=QUIET),
    Setting(PACED, 0.15, 50, False, think=3.0),
]
