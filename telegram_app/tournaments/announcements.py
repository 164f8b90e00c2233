"""The tournaments' tick and their messages to the group.

A job of its own (``transport/scheduler.py:tournaments_job``, at the sweep's pace but apart
from it: a round's posts may wait a minute for the group's budget) runs :func:`tick`: the
league moves every tournament whose round is over on (``advance_tournaments``: it scores the
round, seats the next one and deals its tables, which the presenter shows like any start, or
finishes the tournament), then every announcement owed is posted. An announcement is claimed
in the database while it is sent and marked once sent (``claim_tell`` / ``told``), so a kill
at any point loses none (the next tick, here or in another process, posts it; again, if the
kill came between the send and the mark) and two processes never post one at once. The
start's round-1 announcement takes the same path right after ▶️ Start. After each
announcement the sign-up message is drawn again (the round, whether late joining is still
open, the end). In a forum a round's tables get their topics before its announcement is
drawn, so that it links each table to its topic.
"""

from __future__ import annotations

import asyncio
import logging

from telegram import InlineKeyboardMarkup

from league.tournaments.records import TournamentSnapshot
from telegram_app.i18n import use_language
from telegram_app.miniapp import links
from telegram_app.services import BotServices
from telegram_app.tournaments import drawing, news
from telegram_app.tournaments.memory import TournamentMemory
from telegram_app.transport.outage import is_outage

log = logging.getLogger(__name__)


async def tick(bot: BotServices, memory: TournamentMemory) -> None:
    """Advance the tournaments whose round is over, then post what the group is owed.
    Failures are logged, never raised (the job's ticker must go on)."""
    try:
        await bot.service.advance_tournaments()
    except Exception as exc:
        _failed(bot, exc, "advancing tournaments failed")
        return
    await tell_owed(bot, memory)


async def tell_owed(bot: BotServices, memory: TournamentMemory) -> None:
    """Post every announcement owed that nobody is posting now."""
    try:
        owed = await bot.service.untold_tournaments()
    except Exception as exc:
        _failed(bot, exc, "looking for untold tournaments failed")
        return
    for cup in owed:
        try:
            await tell(bot, memory, cup.id)
        except Exception as exc:  # one tournament's failure must not stop the others'
            _failed(bot, exc, f"announcing tournament {cup.id} failed")


async def tell(bot: BotServices, memory: TournamentMemory, tournament_id: int) -> None:
    """Post tournament ``tournament_id``'s announcement owed now (the latest round's, or the
    final one), if it is not told and this process can claim it; then draw its sign-up
    message again."""
    async with memory.locks.hold(tournament_id):
        cup = await bot.service.tournament(tournament_id)
        target = cup.told_target
        if target == 0 or cup.told_round >= target:
            return
        if cup.status != "finished" and await _place_tables(bot, cup):
            cup = await bot.service.tournament(tournament_id)  # (with the tables' topics)
        async with bot.service.claim_tell(cup.id, target) as claimed:
            if not claimed:
                return
            finished = cup.status == "finished"
            with use_language(await bot.service.chat_language(cup.chat_id)):
                text = news.final_text(cup) if finished else news.round_text(cup)
                link = links.tournament_row(cup.id)  # (the Mini App's page, when it is set up)
            sent = await bot.messenger.send_result(
                cup.chat_id, text, thread_id=cup.thread_id,
                markup=InlineKeyboardMarkup([link]) if link else None)
            if sent == "denied":  # (refused for good, an admin muted the bot: not knocked on)
                log.info("tournament %s: the group refused announcement %s; given up",
                         cup.id, target)
            elif not isinstance(sent, int):  # (unmarked: it is tried again a while later)
                log.warning("the announcement %s of tournament %s was not sent", target, cup.id)
                return
            await bot.service.told(cup.id, target)
    await drawing.show_signup(bot, memory, tournament_id)


async def _place_tables(bot: BotServices, cup: TournamentSnapshot) -> bool:
    """In a forum, give each running table of the round not yet in a topic of its own its
    topic now, under the table's delivery as before its first message
    (:mod:`telegram_app.tournaments.table_topics`; the table's own delivery, spawned when it
    was dealt, may be first): the announcement links each table to its topic. A table whose
    topic was refused already costs no Bot API call; one that fails here is announced
    without its link. Whether any table was looked at."""
    waiting = [t.game_id for t in cup.tables_of(cup.round)
               if cup.forum and t.status == "running" and t.thread_id == cup.thread_id]

    async def place(game_id: int) -> None:
        async with bot.presenter.delivering(game_id, cup.chat_id):
            pass  # (delivering opens the topic)

    for game_id, result in zip(waiting, await asyncio.gather(
            *map(place, waiting), return_exceptions=True), strict=True):
        if isinstance(result, Exception):
            log.info("table %s of tournament %s: no topic before the announcement (%s)",
                     game_id, cup.id, result)
    return bool(waiting)


def _failed(bot: BotServices, exc: Exception, what: str) -> None:
    if is_outage(exc):  # (one warning per outage, as the sweep's)
        bot.presenter.outage.failed(exc)
    else:
        log.error(what, exc_info=exc)
