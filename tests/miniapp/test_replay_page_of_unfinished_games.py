"""The Mini App's replay of a game that is not finished says what the chat's ``/replay`` says
of it (the real bot against the fake Bot API, PostgreSQL; games played through the league
service; the group and the reader in Korean).

Before the fix the page's replay of a cancelled game ended on its last move ("⁨Bob⁩: 3",
under "— 2라운드 —") with no word of the cancellation, where ``/replay`` ends with "— 게임
취소: 레이팅 미반영 —" (cancelled: not rated); a running game's replay ended on its last bid
as if that were how it ended (``/replay``: "— 게임 진행 중 —", still in progress); and a
game cancelled before it started (a lobby) had no step at all: the page read "0단계 중
0단계" ("Step 0 of 0") above nothing, where ``/replay`` says "#7 게임이 취소되었어요."."""

from __future__ import annotations

from league.store.snapshots import UserRef
from tests.e2e.harness import wait_for
from tests.miniapp.koira import koira_game, service_of
from tests.miniapp.miniapp_trust_helpers import (  # (GROUP: the mini fixture's group)
    BIDI,
    GROUP,
    computer_move,
    coyote_game,
    play_out,
)


async def chat_replay(api, user, game_id: int) -> list[str]:
    """The lines of the group's answer to ``/replay <game_id>`` sent by ``user``."""
    command = await user.send(GROUP, f"/replay {game_id}")

    def answer():
        return next((m for m in api.bot_messages(GROUP) if m.reply_to == command.message_id),
                    None)

    await wait_for(lambda: answer() is not None)
    return (answer().text or "").translate(BIDI).split("\n")


async def page_replay(client, game_id: int) -> tuple[dict, list[str]]:
    """The replay page's JSON for Ann reading Korean, and its lines after its last step."""
    response = await client.get(f"replay/{game_id}", 1, language="ko")
    assert response.status_code == 200, response.text
    replay = response.json()
    lines: list[str] = []
    for kept, new in zip(replay["kept"], replay["steps"], strict=True):
        lines = lines[:kept] + new
    assert len(replay["cards"]) == len(replay["steps"])
    return replay, [line.translate(BIDI) for line in lines]


async def test_a_cancelled_a_running_and_a_never_started_games_replay_say_so(mini) -> None:
    api, players, runner, client = mini
    service = service_of(runner)
    await service.set_chat_setting(GROUP, "Mini league", "language", "ko")
    running = await coyote_game(runner, options={"edition": "classic", "specials": True},
                                seed=8, thread=3)
    cancelled = await coyote_game(runner, seed=9, thread=4)
    for step in range(6):
        await computer_move(runner, running.id, step)
        await computer_move(runner, cancelled.id, step)
    await service.cancel(cancelled.id, 1, is_admin=True)
    koira = await koira_game(runner, GROUP, seed=3)  # (thread 0)
    for step in range(8):
        await computer_move(runner, koira.id, step)
    await service.cancel(koira.id, 1, is_admin=True)
    lobby = await service.open_lobby(GROUP, "Mini league", 5, UserRef(1, "Ann"),
                                     kind="coyote")
    await service.cancel(lobby.id, 1, is_admin=True)
    await api.settle()
    ann = players[0]
    for game, end in ((running, "— 게임 진행 중 —"), (cancelled, "— 게임 취소: 레이팅 미반영 —"),
                      (koira, "— 게임 취소: 레이팅 미반영 —")):
        told = await chat_replay(api, ann, game.id)
        assert told[-1] == end, told[-3:]  # (the chat's words for it)
        replay, lines = await page_replay(client, game.id)
        assert lines == told[1:], (game.id, lines[-3:], told[-3:])  # the chat's lines, all
        assert replay["steps"][-1] == [end] and replay["cards"][-1] is None
    told = await chat_replay(api, ann, lobby.id)
    assert told == [f"#{lobby.id} 게임이 취소되었어요."], told
    replay, lines = await page_replay(client, lobby.id)
    assert replay["steps"] == [told] and replay["marks"] == [], replay
    assert replay["title"] == f"🎬 게임 #{lobby.id} 다시 보기"


async def test_a_finished_games_replay_ends_as_before(mini) -> None:
    """(Unchanged: a finished game's replay ends with its places, no status line.)"""
    api, players, runner, client = mini
    await service_of(runner).set_chat_setting(GROUP, "Mini league", "language", "ko")
    game = await coyote_game(runner, options={"edition": "poker-deck"}, seed=7)
    await play_out(runner, game.id)
    await api.settle()
    told = await chat_replay(api, players[0], game.id)
    replay, lines = await page_replay(client, game.id)
    assert lines == told[1:]
    assert lines[-2] == "— 게임 끝 —", lines[-2:]
