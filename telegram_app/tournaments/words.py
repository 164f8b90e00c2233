"""Words every tournament text shares: the tournament's name, its players' names and
mentions, points and tie-breaks, a round's length, the tables' options in the game's own
words, and the refusals of tournament requests. Telegram HTML; every name escaped."""

from __future__ import annotations

from dataclasses import replace
from html import escape
from math import isclose
from typing import Any

from engine import GAMES
from engine.core import OptionSpec
from league.store.snapshots import GameSnapshot
from league.tables.ratings import shown_rating
from league.tournaments.records import EntryInfo, StandingRow, TournamentSnapshot
from telegram_app.games.registry import ui_for
from telegram_app.i18n import _, current_language, format_number
from telegram_app.render.common import error_text, plain_name

MEDALS = {1: "🥇", 2: "🥈", 3: "🥉"}


def game_name(cup: TournamentSnapshot) -> str:
    """The game's name (``GameUI.game_name``)."""
    return ui_for(cup.kind).game_name()


def heading(cup: TournamentSnapshot) -> str:
    """``🏆 Coyote tournament #7`` in bold."""
    return "🏆 <b>" + _("{game} tournament #{id}").format(
        game=game_name(cup), id=cup.id) + "</b>"


def name(entry: EntryInfo) -> str:
    """A player's escaped name; a computer player's with 🤖."""
    text = escape(plain_name(entry.name, 32), quote=False)
    return f"🤖 {text}" if entry.is_ai else text


def mention(entry: EntryInfo) -> str:
    """A link that notifies a human player when sent in a new message (a computer player:
    its name)."""
    if entry.user_id is None:
        return name(entry)
    return f'<a href="tg://user?id={entry.user_id}">{name(entry)}</a>'


def points(value: float) -> str:
    """Points with up to two decimals (⅔ → 0.67), in the reader's digits."""
    return format_number(value, "#,##0.##")


def standing_line(row: StandingRow, rows: tuple[StandingRow, ...] | list[StandingRow]
                  ) -> str:
    """``3. Ann · 1.5``, with the tie-break where it decides the order: Buchholz when
    another player has as many points but another place, Elo too when their Buchholz is the
    same (players equal in all three share a place: nothing decided, nothing shown)."""
    tied = [r for r in rows if r is not row and isclose(r.points, row.points)
            and r.place != row.place]
    line = f"{row.place}. {name(row.entry)} · {points(row.points)}"
    if not tied:
        return line
    if not any(isclose(r.buchholz, row.buchholz) for r in tied):
        return line + " " + _("(Buchholz {buchholz})").format(buchholz=points(row.buchholz))
    return line + " " + _("(Buchholz {buchholz}, Elo {elo})").format(
        buchholz=points(row.buchholz), elo=format_number(shown_rating(row.elo), "0"))


def round_length(seconds: int) -> str:
    """How long a round may last, as the sign-up offers it."""
    lengths = {3600: _("1 hour"), 86400: _("1 day"), 7 * 86400: _("1 week")}
    return lengths.get(seconds) or f"{seconds // 3600} h"  # (no other length is offered)


def option_specs(cup: TournamentSnapshot) -> list[OptionSpec]:
    """The game's options for the tables (``Game.option_specs``), as the lobby offers them."""
    return list(GAMES[cup.kind].option_specs(cup.options))


def as_lobby(cup: TournamentSnapshot) -> GameSnapshot:
    """The tables' options seen as a lobby of the game would hold them: the game's UI words
    a lobby's options (``GameUI.option_label``), and the tables are that game. Its language
    is the one being drawn in (a label drawn in the chat's language reads it from here)."""
    return GameSnapshot(id=cup.id, chat_id=cup.chat_id, thread_id=cup.thread_id,
                        kind=cup.kind, options=cup.options, status="lobby",
                        version=cup.version, state=None, creator_id=cup.creator_id,
                        lobby_message_id=None, table_message_id=None, players=(),
                        language=current_language())


def option_label(cup: TournamentSnapshot, spec: OptionSpec, value: Any) -> str:
    """An option's label at ``value``, the lobby's (``❤️ Lives: 3``)."""
    return ui_for(cup.kind).option_label(as_lobby(cup), spec, value)


def options_line(cup: TournamentSnapshot) -> str:
    """The tables' game in words: its title where it differs from the game's name (an
    edition), then each option as the lobby labels it."""
    ui = ui_for(cup.kind)
    parts = [ui.title(cup.options)] if ui.title(cup.options) != ui.game_name() else []
    parts += [option_label(cup, spec, cup.options.get(spec.name, spec.default))
              for spec in option_specs(cup) if len(spec.values) > 1]
    return " · ".join(parts)


def refusal(code: str, detail: dict[str, Any] | None = None) -> str:
    """The alert for a refused tournament request: the few codes whose words differ from a
    game's, else ``render.common.error_text``'s."""
    own = {
        "not_joined": _("You are not in this tournament."),
        "already_joined": _("You are already in this tournament."),
        "not_allowed": _("Only whoever opened the tournament or a chat admin can do that."),
        "stale": _("That button was out of date: I have redrawn the message, try again."),
    }
    return own.get(code) or error_text(code, detail)


def podium(cup: TournamentSnapshot) -> list[StandingRow]:
    """The medal places: players still in the tournament who scored (nobody gets a medal for
    0 points, or after being withdrawn), each row's ``place`` counted among them: a
    withdrawn leader's 🥇 goes to the best player still in, not to nobody. Rows tied in the
    standings share a medal."""
    medals: list[StandingRow] = []
    eligible = [row for row in cup.standings if row.points > 0 and row.entry.active]
    for n, row in enumerate(eligible):
        tied = n > 0 and eligible[n - 1].place == row.place
        place = medals[-1].place if tied else n + 1
        if place not in MEDALS:
            break
        medals.append(replace(row, place=place))
    return medals
