"""League messages: standings, rating cards, history, replays, the leaderboard and the weekly
and season posts. Telegram HTML; every name escaped."""

from __future__ import annotations

from datetime import timedelta
from html import escape
from typing import Any
from zoneinfo import ZoneInfo

from league.store.snapshots import GameSnapshot
from league.tables.queries import HistoryEntry, RatingCard, Standings
from league.tables.ratings import format_rating
from league.tournaments.records import TournamentSnapshot
from telegram_app.games.registry import ui_for
from telegram_app.i18n import _, format_day, format_number, join_list, n_
from telegram_app.render.chat_settings import game_name, game_title
from telegram_app.render.common import fit_lines, plain_name, seat_label
from telegram_app.render.results import places_text, signed


def escaped_name(name: str) -> str:
    """A name for a league text: cut to 24 characters, bidi-isolated, HTML-escaped."""
    return escape(plain_name(name, 24), quote=False)


_name = escaped_name


def _points(value: float) -> str:
    return format_number(value, "#,##0.##")


def rating_change(change: int) -> str:
    """A period's Elo change as the end of a game shows one (``+7``, ``−8``, ``±0``): the
    sum of the changes its games showed (``StandingRow.rating_change``)."""
    return signed(change)


def standings_text(standings: Standings, *, final: bool = False) -> str:
    """A standings table: its title (with the game's name), rank, player, points, games,
    wins, Elo and its change."""
    titles = {
        "week": _("📊 Standings this week"), "last": _("📊 Standings last week"),
        "season": _("🏆 Season standings"), "last_season": _("🏆 Season standings"),
    }
    title = titles[standings.period]
    if final:
        title = _("📊 Final standings of the week") if standings.period == "last" else \
            _("🏆 Final standings of the season")
    if standings.kind is not None:  # each game has its own league: say whose table it is
        title = f"{title} · {game_name(standings.kind)}"
    zone = ZoneInfo(standings.tz)
    last_day = (standings.end - timedelta(seconds=1)).astimezone(zone)
    lines = [f"<b>{title}</b>", _("{start} – {end}").format(
        start=format_day(standings.start.astimezone(zone), skeleton="MMMEd"),
        end=format_day(last_day, skeleton="MMMEd")), ""]
    if not standings.rows:
        lines.append(_("No rated game yet in this period. Rated games have 3 or more human "
                       "players who made moves of their own and no computer player."))
        return "\n".join(lines)
    lines.append(_("<i>rank · player · points · games · wins · Elo (change)</i>"))
    for row in standings.rows:
        elo = format_rating(row.rating, standings.games_played.get(row.player, 0))
        lines.append(f"{row.rank}. {_name(standings.names.get(row.player, '?'))} · "
                     f"<b>{_points(row.points)}</b> · {row.games} · {row.wins} · {elo} "
                     f"({rating_change(row.rating_change)})")
    return fit_lines(lines, keep="first")


def champion_line(standings: Standings) -> str:
    """``👑 Season champion: …`` for a season table; several on a tie, named champions (as
    the end of a game names its winners)."""
    names = [_name(standings.names.get(r.player, "?")) for r in standings.rows if r.rank == 1]
    if not names:
        return ""
    # (two messages, not n_: the one champion's keeps its translations; a tie is 2 or more)
    line = _("👑 Season champion: {names}!") if len(names) == 1 else \
        _("👑 Season champions: {names}!")
    return line.format(names=join_list(names))


def rating_text(card: RatingCard, kind: str | None = None, *, in_group: bool) -> str:
    """``/rating``: Elo (with "?" while provisional), ranks, games and wins; ``kind``: the
    game to name on the first line (``/rating koira``), as :func:`standings_text` does.
    ``in_group``: the card was asked for in a group, whose rank it shows ("–": unranked
    there); a private chat has no rank of its own, so the line is left out."""
    first = _("⭐ <b>{name}</b>: Elo {elo}").format(name=_name(card.name),
                                                  elo=format_rating(card.rating, card.games))
    lines = [first if kind is None else f"{first} · {game_name(kind)}"]
    if card.games < 10:
        lines.append(_("(? = provisional: fewer than 10 rated games)"))
    if in_group:
        lines.append(_("Rank in this chat: {rank}").format(
            rank=card.chat_rank if card.chat_rank is not None else "–"))
    lines.append(_("Overall rank: {rank}").format(
        rank=card.overall_rank if card.overall_rank is not None else _("– (10 rated games "
                                                                      "needed)")))
    lines.append(_("Rated games: {games} · wins: {wins}").format(games=card.games,
                                                                wins=card.wins))
    return "\n".join(lines)


def top_text(rows: list[tuple[int, str, Any]], kind: str | None = None) -> str:
    """``/top``: the overall leaderboard of game ``kind`` (named in the title, as
    :func:`standings_text` names its game: each game has its own league)."""
    title = _("🏅 <b>Leaderboard</b> (10 or more rated games)")
    if kind is not None:
        title = f"{title} · {game_name(kind)}"
    lines = [title, ""]
    if not rows:
        lines.append(_("Nobody has 10 rated games yet."))
    for rank, name, rating in rows:
        # Ten games or more here, but one win is possible: counted by the wins.
        lines.append(n_("{rank}. {name} · Elo {elo} · {games} games · {wins} win",
                        "{rank}. {name} · Elo {elo} · {games} games · {wins} wins",
                        rating.wins).format(
            rank=rank, name=_name(name), elo=format_rating(rating.rating, rating.games),
            games=rating.games, wins=rating.wins))
    return fit_lines(lines, keep="first")


def history_text(entries: list[HistoryEntry], tournaments: str = "") -> str:
    """``/history``: the chat's last games with placements and Elo changes, then
    ``tournaments`` (a :func:`tournaments_text` section; may be empty)."""
    lines = [_("📜 <b>Last games in this chat</b>"), ""]
    if not entries:
        lines.append(_("No finished game yet."))
    lines += [history_line(entry) for entry in entries]
    if tournaments:
        lines += ["", tournaments]
    lines.append("")
    lines.append(_("/replay ID shows a game move by move."))
    return fit_lines(lines, keep="first")


def my_history_text(games: list[tuple[str | None, HistoryEntry]], tournaments: str) -> str:
    """``/history`` in a private chat: the reader's last games of every group (``games``:
    each with its group's title), then ``tournaments`` (a :func:`tournaments_text` section;
    may be empty); where to look when there is neither."""
    if not games and not tournaments:
        return _("Send /history in a group.")
    lines = [_("📜 <b>Your last games</b>"), ""]
    if not games:
        lines.append(_("No finished game yet."))
    lines += [history_line(entry, _name(title) if title else _("a group"))
              for title, entry in games]
    if tournaments:
        lines += ["", tournaments]
    lines += ["", _("Send /history in a group for its last games."),
              _("Use /replay followed by a game number from /history, in the group where it "
                "was played.")]
    return fit_lines(lines, keep="first")


def history_line(entry: HistoryEntry, group: str | None = None) -> str:
    """A game's line of ``/history``: places and Elo changes; ``group`` (escaped) names the
    group it was played in, for a list of several groups'."""
    places = places_text(
        (place, _name(name) + (f" ({signed(delta)})" if delta is not None else ""))
        for place, name, delta in entry.placements)
    game = game_title(entry.kind, entry.options)
    return _("#{id} · {date} · {game}: {places}").format(
        id=entry.game_id, date=format_day(entry.finished_at, skeleton="MMMd"),
        game=f"{game} · {group}" if group else game, places=places)


def replay_text(game: GameSnapshot, log: list[list[dict[str, Any]]]) -> str:
    """``/replay ID``: the game move by move from its event log (``log``: each move's
    events, in order), in the game's own words (``GameUI.replay_lines``). The seats (a
    computer's level too) are on the title's line: the Mini App's replay page takes the
    first line as its title and the others as the steps. A game that is not over ends with
    what it is (cancelled: not rated; still being played); a lobby, which no move was made
    in, has no replay."""
    if never_started(game):  # (or cancelled, expired as a lobby)
        return _("Game #{id} was cancelled.").format(id=game.id) if game.status == "cancelled" \
            else _("Game #{id} has not started yet: there is nothing to replay.").format(
                id=game.id)
    lines = [_("🎬 <b>Replay of game #{id}</b>").format(id=game.id) + " · " +
             join_list(seat_label(p) for p in game.seated)]
    lines += ui_for(game).replay_lines(game, log)
    end = replay_end(game)
    if end is not None:
        lines.append(end)
    return fit_lines(lines, keep="ends")  # (a long game's middle goes: never how it ended)


def never_started(game: GameSnapshot) -> bool:
    """A game no move was made in (a lobby, or one cancelled or expired as a lobby): its
    replay is :func:`replay_text`'s one sentence."""
    return game.status == "lobby" or game.state is None


def replay_end(game: GameSnapshot) -> str | None:
    """The line a replay of a game that is not over ends with (cancelled: not rated; still
    being played), ``None`` for a finished game."""
    if game.status == "cancelled":
        return _("— game cancelled: not rated —")
    if game.status != "finished":
        return _("— game still in progress —")
    return None


CAPTION_LIMIT = 1000
"""Characters of a photo's caption (Telegram allows 1024)."""


def profile_caption(card: RatingCard, others: list[tuple[str, RatingCard]] | None = None,
                    kind: str | None = None, tournaments: str = "", *,
                    in_group: bool) -> str:
    """The caption of /profile's chart (the chart is of the first card's game, ``kind``
    when the user named one; ``in_group`` as for :func:`rating_text`), then as many whole
    lines of ``tournaments`` (a :func:`tournaments_text` section) as the caption has room
    for."""
    caption = (rating_text(card, kind, in_group=in_group)
               + other_games_text(others or []))[:CAPTION_LIMIT]
    lines = tournaments.split("\n") if tournaments else []
    if lines and len(caption) + 2 + len(lines[0]) + 1 + len(lines[1]) <= CAPTION_LIMIT:
        caption += "\n"  # (a heading with at least one tournament, else nothing)
        for line in lines:
            if len(caption) + 1 + len(line) > CAPTION_LIMIT:
                break
            caption += "\n" + line
    return caption


def other_games_text(cards: list[tuple[str, RatingCard]]) -> str:
    """A player's Elo in the other games they played rated games of, one line each after a
    blank line (empty for none)."""
    return "".join("\n" + ("\n" if i == 0 else "") + _(
        "{game}: Elo {elo} · rated games: {games}").format(
            game=game_name(kind), elo=format_rating(card.rating, card.games), games=card.games)
        for i, (kind, card) in enumerate(cards))


def tournament_stage(cup: TournamentSnapshot) -> str:
    """Where a tournament is: sign-up, round r of n, finished (or cancelled)."""
    if cup.status == "running":
        return _("Round {round} of {rounds}").format(round=cup.round, rounds=cup.rounds)
    return {"signup": _("Sign-up"), "finished": _("Finished")}.get(cup.status, _("Cancelled"))


def tournament_standing(cup: TournamentSnapshot, user_id: int) -> str:
    """Where ``user_id`` stands in a tournament they played: their place of n once it is
    finished, the round while it runs; "withdrawn" when they were."""
    entry = cup.entry_of(user_id)
    if cup.status == "finished":
        row = next((r for r in cup.standings if entry is not None and r.entry.id == entry.id),
                   None)
        text = _("place {place} of {total}").format(
            place=row.place, total=len(cup.standings)) if row else tournament_stage(cup)
    elif cup.status == "running":
        text = _("round {round} of {rounds}").format(round=cup.round, rounds=cup.rounds)
    else:
        text = tournament_stage(cup)
    if entry is not None and not entry.active:
        text += " · " + _("withdrawn")
    return text


def tournament_line(cup: TournamentSnapshot, user_id: int, *, group: bool) -> str:
    """One tournament of a player: ``🏆 #id · day · game · group: place p of n`` (the day
    once finished; ``group``: name the group, for a list that spans several)."""
    head = [f"#{cup.id}"]
    if cup.finished_at is not None:
        head.append(format_day(cup.finished_at, skeleton="MMMd"))
    name, title = game_name(cup.kind), game_title(cup.kind, cup.options)
    head.append(name if title == name else f"{name} · {title}")  # (Coyote's edition)
    if group:
        head.append(_name(cup.chat_title) if cup.chat_title else _("a group"))
    return "🏆 " + " · ".join(head) + ": " + tournament_standing(cup, user_id)


def tournaments_text(cups: list[TournamentSnapshot], user_id: int, title: str, *,
                     group: bool) -> str:
    """A section of a player's latest tournaments under ``title`` (Telegram HTML, already
    escaped by the caller), one :func:`tournament_line` each; empty for none."""
    if not cups:
        return ""
    return "\n".join([title, *(tournament_line(c, user_id, group=group) for c in cups)])
