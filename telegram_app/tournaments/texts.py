"""The sign-up message (the tournament's one message that is edited: its settings and players
while signing up, then where it stands) and ``/tournament``'s answer (the chat's tournaments
in sign-up or running). Group texts: drawn in the group's language by the caller."""

from __future__ import annotations

from datetime import UTC

from league.tournaments.records import TournamentSnapshot
from telegram_app.i18n import _, format_moment, join_list, n_
from telegram_app.render.common import fit_lines, time_html
from telegram_app.tournaments.words import (
    MEDALS,
    heading,
    name,
    options_line,
    podium,
    round_length,
    standing_line,
)

STATUS_STANDINGS = 10
"""Lines of standings ``/tournament`` shows per tournament (the round's message has all)."""


def deadline(cup: TournamentSnapshot) -> str:
    """The round's deadline as a date-time entity (each reader's own zone and language),
    with a UTC fallback; empty when there is none."""
    if cup.round_ends_at is None:
        return ""
    return time_html(cup.round_ends_at, "dt",
                     format_moment(cup.round_ends_at.astimezone(UTC)) + " UTC")


def settings_line(cup: TournamentSnapshot) -> str:
    """Rounds, a round's length and the table size."""
    return _("🔢 {rounds} rounds · ⏱ a round lasts up to {length} · 🪑 tables of "
             "{size}").format(rounds=cup.rounds, length=round_length(cup.round_seconds),
                              size=cup.table_size)


def players_lines(cup: TournamentSnapshot) -> list[str]:
    """The players still in, numbered, in join order."""
    active = cup.active
    lines = [_("Players ({n}):").format(n=len(active))]
    lines += [f"{n}. {name(entry)}" for n, entry in enumerate(active, start=1)]
    return lines


def late_join_until(cup: TournamentSnapshot) -> int:
    """The round whose start closes late joining: half the rounds started."""
    return (cup.rounds + 1) // 2


def signup_text(cup: TournamentSnapshot, creator: str | None = None) -> str:
    """The sign-up message as the tournament is now. ``creator``: the escaped name of whoever
    opened it (``None``: not among the players any more)."""
    lines = [heading(cup)]
    if cup.status == "cancelled":
        return "\n".join([heading(cup), _("This tournament was cancelled.")])
    if cup.status == "finished":
        medals = [f"{MEDALS[row.place]} {name(row.entry)}" for row in podium(cup)]
        return "\n".join([heading(cup), _("This tournament is over."), *medals])
    if cup.status == "signup":
        lines[0] += " · " + _("sign-up is open")
    else:
        lines[0] += " · " + _("round {round} of {rounds} is on").format(
            round=cup.round, rounds=cup.rounds)
    game = options_line(cup)
    lines += ([game] if game else []) + [settings_line(cup), ""] + players_lines(cup) + [""]
    if cup.status == "signup":
        lines.append(_("Join with ✋. {name} or a chat admin sets the tournament up and "
                       "starts it with ▶️ (at least 3 players).").format(name=creator)
                     if creator else
                     _("Join with ✋. A chat admin sets the tournament up and starts it with "
                       "▶️ (at least 3 players)."))
    elif cup.late_join_open:
        lines.append(_("It is not too late: ✋ Join is open until round {round} starts, and "
                       "each round you missed counts as a bye (½ point).").format(
            round=late_join_until(cup)))
    lines.append(_("/rules tournament explains the scoring; /tournament shows the "
                   "standings."))
    return fit_lines(lines, keep="first")


def status_text(cups: list[TournamentSnapshot]) -> str:
    """``/tournament``: each tournament in sign-up or running in this chat: its game, its
    round and deadline, the standings so far and the current round's tables (or, with none,
    the last one's final standings)."""
    lines: list[str] = []
    for cup in cups:
        if lines:
            lines.append("")
        lines += _status(cup)
    return fit_lines(lines, keep="first")


def _status(cup: TournamentSnapshot) -> list[str]:
    if cup.status == "finished":  # (its final standings, as its last message told them)
        shown = cup.standings[:STATUS_STANDINGS]
        return [heading(cup), _("This tournament is over."), _("<b>Final standings:</b>"),
                *[standing_line(row, cup.standings) for row in shown],
                *(["…"] if len(cup.standings) > len(shown) else [])]
    if cup.status == "signup":
        return [heading(cup) + " · " + _("sign-up is open"), settings_line(cup),
                n_("{n} player so far: join with ✋ on the sign-up message.",
                   "{n} players so far: join with ✋ on the sign-up message.",
                   len(cup.active)).format(n=len(cup.active))]
    lines = [heading(cup) + " · " + _("round {round} of {rounds}").format(
        round=cup.round, rounds=cup.rounds)]
    if cup.round_ends_at is not None:
        lines.append(_("⏱ The round ends {time}.").format(time=deadline(cup)))
    if cup.round > 1:
        lines.append(_("<b>Standings so far:</b>"))
        shown = cup.standings[:STATUS_STANDINGS]
        lines += [standing_line(row, cup.standings) for row in shown]
        if len(cup.standings) > len(shown):
            lines.append("…")
    lines.append(_("<b>Round {round}:</b>").format(round=cup.round))
    for table in cup.tables_of(cup.round):
        names = join_list(name(cup.entry(e)) for e in table.entries)
        mark = "✅" if table.status == "finished" else "▶️" if table.status == "running" \
            else "✖️"
        lines.append(_("{mark} Table {table}: {names}").format(
            mark=mark, table=table.table, names=names))
    byes = cup.byes_of(cup.round)
    if byes:
        lines.append(_("☕ Bye (½ point): {names}").format(
            names=join_list(name(e) for e in byes)))
    return lines
