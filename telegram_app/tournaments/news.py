"""The messages a tournament owes the group: one when each round is seated (what happened in
the round before, the standings, the byes and the new tables, mentioning each human player
once, the deadline) and the final one (the podium and the full standings). Group texts:
drawn in the group's language by the caller; a computer player is never mentioned."""

from __future__ import annotations

import re

from league.tournaments.records import (
    NO_SHOWS_BEFORE_WITHDRAWAL,
    EntryInfo,
    StandingRow,
    TableInfo,
    TournamentSnapshot,
)
from telegram_app.i18n import _, join_list, n_
from telegram_app.render.common import fit_lines
from telegram_app.tournaments.texts import deadline
from telegram_app.tournaments.words import (
    MEDALS,
    game_name,
    mention,
    name,
    podium,
    points,
    standing_line,
)

SHOWN_STANDINGS = 40
"""Standings lines in an announcement (``/tournament`` and the final message show the top;
a long table would push the new round's tables out of the message)."""
ENTITY_LIMIT = 100
"""Telegram applies at most this many entities of a message (bold, mentions, links …) and
ignores the rest: a table's link to its topic must not cost a player's mention its
notification."""
_ENTITY = re.compile(r"<[a-z]")  # (an opening tag: names are escaped, "&lt;" in the text)


def round_text(cup: TournamentSnapshot) -> str:
    """The announcement of round ``cup.round`` (with what ended the round before), each
    table's number a link to its forum topic where it has one (:func:`topic_link`), unless
    the links would take the message past :data:`ENTITY_LIMIT`."""
    text = _round_text(cup, links=True)
    if len(_ENTITY.findall(text)) > ENTITY_LIMIT:
        text = _round_text(cup, links=False)
    return text


def topic_link(cup: TournamentSnapshot, table: TableInfo) -> str | None:
    """``https://t.me/c/<group>/<topic>``: the forum topic table ``table`` is played in, or
    ``None`` when it has none of its own (not a forum, or the bot may not open topics: it is
    played in the tournament's topic). ``<group>`` is the chat id without the ``-100`` every
    supergroup's begins with; the link opens the topic for the group's members, in a public
    group as in a private one (a public group's ``t.me/<username>/<topic>`` would take its
    username, which the bot does not keep)."""
    chat = str(cup.chat_id)
    if not cup.forum or table.thread_id in (0, cup.thread_id) or not chat.startswith("-100"):
        return None
    return f"https://t.me/c/{chat[4:]}/{table.thread_id}"


def _round_text(cup: TournamentSnapshot, *, links: bool) -> str:
    lines = ["🏆 <b>" + _("{game} tournament #{id}: round {round} of {rounds}").format(
        game=game_name(cup), id=cup.id, round=cup.round, rounds=cup.rounds) + "</b>"]
    if cup.round == 1:
        lines.append(n_("Let's go! {n} player, good luck to you all.",
                        "Let's go! {n} players, good luck to you all.",
                        len(cup.active)).format(n=len(cup.active)))
    else:
        lines += round_notes(cup, cup.round - 1)
    # Who plays where (each mention notifies its player) and the deadline come before the
    # standings: a long message is cut at its end.
    lines.append("")
    if cup.round_ends_at is not None:
        lines.append(_("⏱ Play your table's game before {time}: then the computer finishes "
                       "the tables still playing.").format(time=deadline(cup)))
    byes = cup.byes_of(cup.round)
    if byes:
        lines.append(_("☕ Bye (½ point): {names}").format(
            names=join_list(mention(e) for e in byes)))
    for table in cup.tables_of(cup.round):
        link = topic_link(cup, table) if links else None
        number = f'<a href="{link}">{table.table}</a>' if link else table.table
        lines.append(_("Table {table}: {names}").format(
            table=number, names=join_list(mention(cup.entry(e)) for e in table.entries)))
    if cup.round > 1:
        lines += ["", _("<b>Standings:</b>"), *standings_lines(
            cup, cup.standings[:SHOWN_STANDINGS])]
        if len(cup.standings) > SHOWN_STANDINGS:
            lines.append("…")
    return fit_lines(lines, keep="first")


def final_text(cup: TournamentSnapshot) -> str:
    """The final message: the podium (its humans mentioned) and the full standings."""
    title = _("{game} tournament #{id} is over!").format(game=game_name(cup), id=cup.id)
    lines = ["🏆 <b>" + title + "</b>"]
    if cup.round < cup.rounds:
        lines.append(_("It ended after round {round} of {rounds}: too few players were left "
                       "(fewer than 3, or only computer players).").format(
            round=cup.round, rounds=cup.rounds))
    lines += round_notes(cup, cup.round)
    lines.append("")
    told = {r.entry_id for r in cup.results if r.round == cup.round and r.no_show
            and _withdrawn(cup.entry(r.entry_id))}  # (mentioned by the notes already)
    lines += [f"{MEDALS[row.place]} "
              f"{name(row.entry) if row.entry.id in told else mention(row.entry)} · "
              f"{points(row.points)}" for row in podium(cup)]
    lines += ["", _("<b>Final standings:</b>")]
    lines += standings_lines(cup, list(cup.standings))
    return fit_lines(lines, keep="first")


def standings_lines(cup: TournamentSnapshot, rows: list[StandingRow] | tuple[StandingRow, ...]
                    ) -> list[str]:
    """One line a player (plain names: the tables mention them), a withdrawn one marked."""
    return [standing_line(row, cup.standings) + ("" if row.entry.active else
                                                 " " + _("(withdrawn)"))
            for row in rows]


def round_notes(cup: TournamentSnapshot, round_: int) -> list[str]:
    """What the group should know of round ``round_``'s end: the tables the computer
    finished at the deadline, and who made no move of their own (0 points; withdrawn after
    the second such game, mentioned then: they sit at no table of the next round; one
    withdrawn otherwise is not named)."""
    lines = []
    by_computer = cup.by_computer(round_)
    if by_computer:
        lines.append(n_("🤖 The computer finished table {tables} at the deadline.",
                        "🤖 The computer finished tables {tables} at the deadline.",
                        len(by_computer)).format(tables=join_list(map(str, by_computer))))
    absent = [cup.entry(r.entry_id) for r in cup.results if r.round == round_ and r.no_show]
    withdrawn = [e for e in absent if _withdrawn(e)]
    missed = [e for e in absent if e.active]  # (one withdrawn otherwise, by leaving say,
    # is not warned of a second game: the standings mark them withdrawn)
    if missed:
        lines.append(n_(
            "😴 {names} made no move at their table: 0 points. A second game without a move "
            "withdraws a player.",
            "😴 {names} made no move at their tables: 0 points. A second game without a move "
            "withdraws a player.", len(missed)).format(
            names=join_list(name(e) for e in missed)))
    if withdrawn:
        lines.append(n_(
            "🚫 {names} made no move in two games and is withdrawn from the tournament.",
            "🚫 {names} made no move in two games and are withdrawn from the tournament.",
            len(withdrawn)).format(names=join_list(mention(e) for e in withdrawn)))
    return lines


def _withdrawn(entry: EntryInfo) -> bool:
    return not entry.active and entry.no_shows >= NO_SHOWS_BEFORE_WITHDRAWAL
