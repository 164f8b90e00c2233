"""From Telegram into a handler, once (DEVELOPERS.md: "From an update to its messages")."""

from telegram_app.transport.intake.lanes import KEY, Intake, LaneProcessor, lane_of
from telegram_app.transport.intake.receiving import HOLD_PAUSE, InboxBot
from telegram_app.transport.intake.unfinished import ANSWER_WINDOW, replay_job

__all__ = ["ANSWER_WINDOW", "HOLD_PAUSE", "KEY", "InboxBot", "Intake", "LaneProcessor",
           "lane_of", "replay_job"]
