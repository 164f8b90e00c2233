"""The sign-up message: sent once (in the tournament's topic) and recorded, then edited after
every change. One drawing at a time per tournament (the process's lock), each reading the
tournament as it is then, so an edit never shows an older picture than the one before it.
"""

from __future__ import annotations

import logging

from telegram_app.i18n import use_language
from telegram_app.services import BotServices
from telegram_app.tournaments import keyboards, texts
from telegram_app.tournaments.memory import TournamentMemory
from telegram_app.tournaments.words import name

log = logging.getLogger(__name__)


async def show_signup(bot: BotServices, memory: TournamentMemory, tournament_id: int, *,
                      pressed: tuple[int, int] | None = None) -> None:
    """Draw tournament ``tournament_id``'s sign-up message as it is now: send it when it was
    never sent (a tournament in sign-up; a kill right after ``/tournament`` opened it, or a
    message that is gone), else edit it; ``pressed``: (chat, message id) of an older copy a
    button was pressed on, edited too."""
    async with memory.locks.hold(tournament_id):
        cup = await bot.service.tournament(tournament_id)
        creator = cup.entry_of(cup.creator_id)
        with use_language(await bot.service.chat_language(cup.chat_id)):
            text = texts.signup_text(cup, name(creator) if creator else None)
            markup = keyboards.signup_keyboard(cup)
        shown = "gone" if cup.message_id is None else await bot.messenger.edit(
            cup.chat_id, cup.message_id, text, markup=markup)
        if shown == "gone" and cup.status == "signup":
            sent = await bot.messenger.send(cup.chat_id, text, thread_id=cup.thread_id,
                                            markup=markup)
            if sent is not None:
                await bot.service.set_tournament_message(cup.id, sent)
        if pressed is not None and pressed != (cup.chat_id, cup.message_id):
            await bot.messenger.edit(pressed[0], pressed[1], text, markup=markup)
