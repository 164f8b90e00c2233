"""Seeded recorded games, rendered: every message and button a game's players read, in one
language, without a network. What the English check (``tests/bot/test_no_english.py``) and
the button widths (``tests/bot/test_button_widths.py``) look at.

A game is played by the engine with seeded random choices (specials used when legal,
Coyote! called now and then), step by step as the bot shows it: the lobby, the closed lobby,
each step's group report, the table, every private view and keyboard, the 👀 alert, the
second keyboards (more bids, targets, guesses), a reminder, closed rounds, the replay; and the
texts around a game (/help, /rules of the edition, the welcome, every refusal's alert, the
league's tables, cards and posts, /settings).
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from types import SimpleNamespace

from telegram import InlineKeyboardMarkup

from engine import GAMES
from engine.coyote import EDITIONS
from league.match.outcome import Step
from league.store.snapshots import GameSnapshot, PlayerInfo
from league.tables.places import final_places
from league.tables.queries import HistoryEntry, RatingCard, Standings
from league.tables.standings import StandingRow
from telegram_app.callbacks import ARITY
from telegram_app.games.coyote import notes
from telegram_app.games.coyote import screens as render
from telegram_app.games.coyote.keyboards import guess_rows, move_rows, target_rows
from telegram_app.games.coyote.notes import report
from telegram_app.games.coyote.rules import rules_text
from telegram_app.i18n import use_language
from telegram_app.keyboards import (
    lobby_keyboard,
    private_keyboard,
    table_keyboard,
)
from telegram_app.render import league as league_text
from telegram_app.render import texts
from telegram_app.render.chat_settings import LEAGUE_SETTINGS, settings_keyboard
from telegram_app.render.common import error_text
from telegram_app.render.turns import reminder_text

GAME = GAMES["coyote"]
NAMES = ["Kim", "Sato", "Ruiz", "Park"]
"""Player names that are no English word (they must not count as English left over)."""
DEADLINE = datetime(2026, 3, 5, 14, 30, tzinfo=UTC)
ERROR_CODES = ("game_not_found", "game_open", "not_in_lobby", "not_running", "already_joined",
               "game_full", "not_joined", "not_creator", "bad_option", "bad_timezone", "no_ai",
               "too_few_players", "bad_player_count", "bad_lives", "unknown_edition",
               "already_paused", "not_paused", "lives_need_fewer_players", "not_a_player",
               "stale", "typed_too_early", "already_handled", "not_allowed", "cancel_running",
               "special_not_available", "mask_used", "bad_target", "pass_blocked",
               "nothing_to_change", "must_answer_change", "coin_used", "one_coin_per_turn",
               "coins_two_players", "guess_not_allowed", "no_card_to_draw", "must_bid",
               "own_bid", "bid_too_high", "not_your_turn", "bid_too_low", "no_bid_to_call",
               "game_over", "bad_action", "bad_button", "game_members_only",
               "league_members_only", "profile_not_shared")


def options_of(edition: str) -> dict:
    """The lobby options of a game of ``edition`` with its special actions on."""
    options: dict = {"edition": edition, "pace": "standard", "timeout_policy": "ai"}
    if "specials" in GAME.option_choices(options):
        options["specials"] = True
    return options


def snapshot(state: dict | None, options: dict, language: str, *, status: str = "running",
             version: int = 12) -> GameSnapshot:
    """A game of the four :data:`NAMES` (seat 0 a human … all humans) whose chat and players
    read ``language``."""
    # Over: the league's places, as the finishing transaction stores them on the seats
    places = final_places(GAME.placements(state), ()) if state is not None and \
        state["over"] else [None] * 4
    players = tuple(PlayerInfo(1000 + i, NAMES[i], None if state is None else i, False,
                               None if state is None else state["lives"][i], places[i], 50 + i,
                               None if state is None else state["round"], language)
                    for i in range(4))
    return GameSnapshot(7, -100, 0, "coyote", options, status, version, state, 1000, 5, 6,
                        players, deadline_at=DEADLINE if state is not None else None,
                        language=language)


def _choose(rng: random.Random, state: dict, seat: int):
    actions = GAME.legal_actions(state, seat)
    calls = [a for a in actions if a.kind == "call"]
    specials = [a for a in actions if a.kind == "special" or a.special]
    if calls and rng.random() < 0.35:
        return calls[0]
    if specials and rng.random() < 0.4:
        return rng.choice(specials)
    bids = [a for a in actions if a.kind == "bid" and not a.special] or actions
    return min(bids[:3], key=lambda a: a.amount or 0) if rng.random() < 0.7 else \
        rng.choice(bids)


def messages(edition: str, seed: int, language: str) -> Iterator[tuple[str, str]]:
    """``(what, text)`` for every message of a seeded game of ``edition`` rendered in
    ``language`` (Telegram HTML, as sent), buttons included (``what`` starts ``button``)."""
    rng = random.Random(seed)
    options = options_of(edition)
    lobby = snapshot(None, options, language, status="lobby", version=3)
    yield "lobby", render.lobby_text(lobby, {1000, 1001})
    yield from _buttons("lobby keyboard", lobby_keyboard(lobby, "coyote_bot"))
    state, _events = GAME.new_game(4, seed, options)
    game = snapshot(state, options, language)
    yield "lobby closed", render.lobby_closed_text(replace(game, status="running"))
    log: list[list[dict]] = []
    for number in range(400):
        if state["over"]:
            break
        seat = state["turn"]
        yield from _table(game, language, rng)
        if number == 3:
            with use_language(language):  # as the sweeper draws it (scheduler.show)
                yield "reminder", reminder_text(game, game.at_seat(seat))
                yield "reminder (removal)", reminder_text(
                    game, game.at_seat(seat), removal=True)
        round_before = state["round"]
        state, events = GAME.apply(state, seat, _choose(rng, state, seat))
        step = Step(seat, False, [e.to_json() for e in events], state)
        log.append(step.events)
        game = snapshot(state, options, language, version=12 + number)
        shown = report(game, [step])
        if shown.lines:
            yield "report", "\n".join(shown.lines)
        if state["round"] != round_before or state["over"]:
            yield "private closed", render.private_closed_text(game, round_before,
                                                               reader=game.at_seat(0))
    cancelled = replace(game, status="cancelled")
    yield "cancelled", render.lobby_closed_text(cancelled)
    yield "expired", render.lobby_expired_text(lobby)
    with use_language(language):  # a command's answer, in the chat's language
        yield "replay", league_text.replay_text(replace(game, status="finished"), log)
        for rated in ((True, True, True, False), (False,) * 4):  # (league.tables.rated's verdicts)
            seats = tuple(replace(p, rated=r) for p, r in zip(game.players, rated, strict=True))
            yield "game over (rating)", notes.game_over_text(
                replace(game, status="finished", players=seats))
        yield "rules", rules_text(edition, options)
        yield "help", texts.help_text()
        yield "welcome", texts.welcome_text()
        for code in ERROR_CODES:
            yield f"alert {code}", error_text(code, {"game_id": 7, "max": 99, "min": 3,
                                                     "seats": 4, "lives": 3})
        yield from league_messages(edition)
        choices = dict(LEAGUE_SETTINGS)
        for kind in GAMES:
            for spec in GAMES[kind].setting_specs():
                choices[f"{kind}.{spec.name}"] = spec.values
        for index in range(max(len(v) for v in choices.values())):
            picked = {k: v[index % len(v)] for k, v in choices.items()}
            current: dict = {k: v for k, v in picked.items() if "." not in k}
            current["games"] = {kind: {k.split(".")[1]: v for k, v in picked.items()
                                       if k.startswith(f"{kind}.")} for kind in GAMES}
            yield from _buttons("settings keyboard", settings_keyboard(current))
    assert ARITY  # the callback table is imported: the keyboards' data stay valid


def _table(game: GameSnapshot, language: str, rng: random.Random
           ) -> Iterator[tuple[str, str]]:
    state = game.state or {}
    seat = state["turn"]
    yield "table", render.table_text(game, mention=True)
    yield from _buttons("table keyboard", table_keyboard(game))
    for p in game.seated:
        if state["lives"][p.seat or 0] > 0:
            yield "private", render.private_text(game, p.seat or 0)
            yield "peek alert", render.peek_alert(game, p.seat or 0)
    with use_language(language):
        yield from _buttons("private keyboard", private_keyboard(game, seat))
        yield from _rows("more bids", move_rows(game, (state["bids"][-1][1] if state["bids"]
                                                       else 0) + 9))
        for special in ("double", "draw1", "shot"):
            rows = target_rows(game, special)
            if len(rows) > 2:
                yield from _rows(f"{special} targets", rows)
        if "guess" in state.get("coins", []):
            yield from _rows("guesses", guess_rows(game))


def _buttons(what: str, markup: InlineKeyboardMarkup | None) -> Iterator[tuple[str, str]]:
    if markup is not None:
        yield from _rows(what, [list(row) for row in markup.inline_keyboard])


def _rows(what: str, rows) -> Iterator[tuple[str, str]]:
    for r, row in enumerate(rows):
        for c, button in enumerate(row):
            yield f"button {what} {r}.{c}", button.text


EDITION_NAMES = tuple(EDITIONS)


def league_messages(edition: str) -> Iterator[tuple[str, str]]:
    """The league's texts after such games (in the current language): the standings of each
    period (empty and with rows), the weekly and season posts, a rating card, the
    leaderboard, the history and the profile's caption."""
    start = datetime(2026, 3, 2, tzinfo=UTC)
    rows = [StandingRow(1000 + i, 3.5 - i, 4, 2 - i // 2, 1510.0 - 7 * i, 5 - 3 * i, i + 1)
            for i in range(4)]
    names = {1000 + i: NAMES[i] for i in range(4)}
    for period in ("week", "last", "season", "last_season"):
        for shown in ([], rows):
            table = Standings(period, start, start + timedelta(days=7), shown, names,
                              {1000: 3, 1001: 12}, "Asia/Seoul")
            yield f"standings {period}", league_text.standings_text(table)
            yield f"standings {period} final", league_text.standings_text(table, final=True)
            yield "champion", league_text.champion_line(table)
    for games, rank in ((3, None), (12, 2)):
        card = RatingCard(1000, NAMES[0], 1523.4, games, 1, 1, rank)
        yield "rating", league_text.rating_text(card, in_group=True)
        yield "profile caption", league_text.profile_caption(card, in_group=True)
    rating = SimpleNamespace(rating=1540.0, games=14, wins=5)
    yield "top", league_text.top_text([])
    yield "top", league_text.top_text([(1, NAMES[1], rating), (2, NAMES[2], rating)])
    yield "history", league_text.history_text([])
    yield "history", league_text.history_text([HistoryEntry(
        3, start, "coyote", {"edition": edition},
        [(1, NAMES[0], 12.5), (2, NAMES[1], -3.0), (3, NAMES[2], None)])])
