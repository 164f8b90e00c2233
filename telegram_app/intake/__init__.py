"""How an update gets from Telegram into a handler: stored, laned, handled once.

- **Receive** (:mod:`.receiving`): every update is stored in the league's inbox before
  Telegram is told it arrived. Polling: :class:`InboxBot` stores what ``getUpdates`` returns
  before returning it (PTB's Updater confirms an offset only with its *next* call); webhook:
  :mod:`telegram_app.web` stores before its 200. During a database outage the sender is
  answered "nothing was changed"; an update with nobody to answer is left on Telegram's side.
- **Lanes** (:mod:`.lanes`): updates are handled concurrently, one at a time per lane
  (:func:`lane_of`: the game a button names, else the chat's topic, a private chat by its
  user), in order of arrival. The change a handler commits marks its item done in that commit
  (``league.inbox``); an update that changed nothing is marked done after its handler. Across
  processes the database is the guard: version checks, unique keys, the done mark.
- **Replay** (:mod:`.replay`): what a dead process left undone is taken over (claimed in the
  inbox) and handled; the presses a kill left unanswered are answered after a restart.
"""

from telegram_app.intake.lanes import KEY, Intake, LaneProcessor, kind_of, lane_of
from telegram_app.intake.receiving import HOLD_PAUSE, InboxBot
from telegram_app.intake.replay import ANSWER_WINDOW, replay_job

__all__ = ["ANSWER_WINDOW", "HOLD_PAUSE", "KEY", "InboxBot", "Intake", "LaneProcessor",
           "kind_of", "lane_of", "replay_job"]
