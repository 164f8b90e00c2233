"""Whole Koira games from the group: by 🎴 alone, a mixed table, a private player using 🎴."""

from __future__ import annotations

import pytest

from tests.e2e.group_koira_helpers import (
    GROUP,
    NAMES,
    Table,
    Watch,
    end_checks,
    hidden_card_faults,
    live,
    open_table,
    play_one,
    play_to_end,
)
from tests.e2e.group_play_common import (
    current,
    fake_api,  # noqa: F401 (the api fixture)
)
from tests.e2e.koira_play import KOIRA, koira_version, moves
from tests.english_check import log_faults
from tests.fakebot import FakeBotAPI, FakeUser, StoredMessage


@pytest.mark.parametrize(("language", "count"), [("ja", 3), ("ko", 4)])
async def test_a_whole_game_from_the_group_alone(api, sqlite_url, language, count) -> None:
    """Nobody has a private chat: every move through 🎴 and its ephemeral message."""
    names = NAMES[language][:count]
    t = await open_table(api, sqlite_url, [language] * count, [False] * count, names=names)
    try:
        watch = Watch(language)
        await play_to_end(t, watch)
        game = await current(t)
        assert game.status == "finished"
        faults = watch.faults + hidden_card_faults(api, t, language) + \
            end_checks(api, t, language, 0)
        faults += [str(f) for f in log_faults(api.log, {GROUP: language},
                                              {n: language for n in names}, tuple(names))]
        assert not faults, faults[:15]
    finally:
        await t.runner.stop()


def private_faults(api: FakeBotAPI, t: Table, game, user: FakeUser) -> list[str]:
    """Players with a private chat who are not to act hold no live move buttons there."""
    faults = []
    for other in t.players:
        if other.id in t.group_only or other is user:
            continue
        stale = [m for m in api.bot_messages(other.id) if moves(api, m)]
        if stale:
            faults.append(f"v{game.version}: {other.first_name}'s private chat keeps move "
                          f"buttons off-turn (v{koira_version(api, stale[-1])})")
    return faults


class MixedWatch(Watch):
    def __init__(self, language: str, peekers: set[int] = frozenset()) -> None:
        super().__init__(language)
        self.peekers = peekers

    async def __call__(self, t: Table, game, user: FakeUser, message: StoredMessage) -> None:
        await super().__call__(t, game, user, message)
        self.faults += private_faults(t.api, t, game, user)
        for other in t.players:  # a private player's own 🎴 message: no buttons off-turn
            if other is user or other.id in t.group_only:
                continue
            eph = live(t.api, other)
            if eph is not None and moves(t.api, eph):
                self.faults.append(f"v{game.version}: {other.first_name}'s 🎴 message "
                                   f"keeps move buttons off-turn")


@pytest.mark.parametrize("language", ["ja", "ko"])
async def test_a_mixed_table(api, sqlite_url, language) -> None:
    """Two players with a private chat, two without: the first two are never named in the
    group, the others once a turn; nobody keeps move buttons off-turn anywhere."""
    names = NAMES[language]
    t = await open_table(api, sqlite_url, [language] * 4, [True, False, True, False],
                         names=names)
    try:
        watch = MixedWatch(language)
        await play_to_end(t, watch)
        faults = watch.faults + hidden_card_faults(api, t, language) + \
            end_checks(api, t, language, 0)
        languages = {GROUP: language} | {u.id: language for u in t.players}
        faults += [str(f) for f in log_faults(api.log, languages,
                                              {n: language for n in names}, tuple(names))]
        assert not faults, faults[:15]
    finally:
        await t.runner.stop()


async def test_a_player_with_a_private_chat_who_plays_by_the_tables_button(
        api, sqlite_url) -> None:
    """A Korean player who started the bot plays every turn from the group anyway (🎴):
    the keyboard in their private chat must not stay live beside the one in the group, and
    theirs in the group must lose its buttons once they moved."""
    language = "ko"
    names = NAMES[language][:3]
    t = await open_table(api, sqlite_url, [language] * 3, [True, False, False], names=names)
    host = t.players[0]
    t.group_only.add(host.id)  # (plays as if group-only: by 🎴)
    try:
        faults: list[str] = []
        watch = Watch(language)
        for _ in range(40):
            game = await current(t)
            if game.status != "running":
                break
            seat = KOIRA.current_seat(game.state)
            if game.at_seat(seat).user_id != host.id:
                await play_one(t, watch)
                continue
            await play_one(t, watch)
            await t.api.settle(quiet=0.1)
            game = await current(t)
            if KOIRA.current_seat(game.state) == seat:
                continue
            stale = [m for m in api.bot_messages(host.id) if moves(api, m)]
            if stale:
                faults.append(f"v{game.version}: the private message keeps move buttons "
                              f"after a move made by 🎴")
            eph = live(api, host)
            if eph is not None and moves(api, eph):
                faults.append(f"v{game.version}: the 🎴 message keeps move buttons")
        assert not faults + watch.faults, (faults + watch.faults)[:10]
    finally:
        await t.runner.stop()
