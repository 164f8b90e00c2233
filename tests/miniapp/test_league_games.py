"""The Mini App's league pages per game, against the real bot (fake Bot API, PostgreSQL): a
chat with a finished, rated Coyote game and a finished, rated Koira game, both played from
the page alone. The page's standings and Elo are the chat commands' figures (``/standings``,
``/standings koira``, ``/profile``), its history lists both games by name, and its replay
steps through either game to the game's own ``/replay`` lines."""

from __future__ import annotations

import pytest

from telegram_app.games.coyote.words import card_label
from telegram_app.games.registry import UIS
from telegram_app.miniapp.league_api import replay_marks, replay_steps
from telegram_app.miniapp.text import plain
from tests.e2e.harness import wait_for
from tests.miniapp.koira import service_of
from tests.miniapp.league import KoiraUI, both_games, play_from_page, rated_koira_game

GROUP = -100555
BIDI = str.maketrans("", "", "\u2068\u2069")


@pytest.fixture
def koira_ui():
    with KoiraUI():
        yield


async def _told(api, user, text: str, wanted: str) -> str:
    """What the bot answers ``text`` sent in the group (the newest message with ``wanted``),
    without Unicode isolates."""
    before = len(api.find_messages(GROUP, wanted))
    await user.send(GROUP, text)
    await wait_for(lambda: len(api.find_messages(GROUP, wanted)) > before)
    return (api.find_messages(GROUP, wanted)[-1].text or "").translate(BIDI)


def _row_line(row: dict) -> str:
    return f"{row['rank']}. {row['name']} · {row['points']} · {row['games']} · " \
           f"{row['wins']} · {row['elo']} ({row['change']})"


async def test_the_league_pages_show_each_games_figures(mini, koira_ui) -> None:
    api, players, runner, client = mini
    coyote, koira = await both_games(mini, GROUP)
    for kind, command, title in (("coyote", "/standings", "Standings this week"),
                                 ("koira", "/standings koira", "Standings this week")):
        chat_text = await _told(api, players[0], command, title)
        week = (await client.get(f"chat/{GROUP}/standings?period=week&game={kind}", 1)).json()
        assert week["game"] == kind and len(week["rows"]) == 3, week
        assert {g["kind"] for g in week["kinds"]} >= {"coyote", "koira"}
        assert week["kinds"][0]["kind"] == "coyote"  # the chat commands' default first
        for row in week["rows"]:
            assert _row_line(row) in chat_text, (kind, row, chat_text)
        assert week["title"] in chat_text and week["range"] in chat_text
        season = (await client.get(f"chat/{GROUP}/standings?period=season&game={kind}",
                                   1)).json()
        assert [_row_line(r) for r in season["rows"]] == [_row_line(r) for r in week["rows"]]
    # without a game the page opens on the one the chat played last (Koira), unlike
    # /standings, which shows Coyote's
    default = (await client.get(f"chat/{GROUP}/standings", 1)).json()
    assert default["game"] == "koira"
    coyote_rows = {r["name"]: r for r in (await client.get(
        f"chat/{GROUP}/standings?game=coyote", 1)).json()["rows"]}
    koira_rows = {r["name"]: r for r in (await client.get(
        f"chat/{GROUP}/standings?game=koira", 1)).json()["rows"]}
    # /profile: the Coyote card and chart, the Koira line after it
    caption = await _told(api, players[1], "/profile", "Rank in this chat")
    page = (await client.get(f"profile/2?chat={GROUP}&game=coyote", 2)).json()
    assert page["game"] == "coyote"
    assert [line.translate(BIDI) for line in page["lines"]] == caption.split("\n")
    assert len(page["points"]) == 1 and page["elo"] == coyote_rows["Bob"]["elo"]
    mine = (await client.get(f"profile/2?chat={GROUP}&game=koira", 2)).json()
    assert mine["game"] == "koira" and len(mine["points"]) == 1
    assert mine["elo"] == koira_rows["Bob"]["elo"] and mine["games"] == 1
    assert f"Koira: Elo {mine['elo']} · rated games: 1" in caption
    assert f"Elo {mine['elo']}" in mine["lines"][0]
    # one's own profile without a chat: no chat to rank in, so no such line
    own = (await client.get("profile/2?game=coyote", 2)).json()
    assert own["lines"] == [line for line in page["lines"]
                            if not line.startswith("Rank in this chat")], own["lines"]
    assert any(f"Coyote: Elo {page['elo']}" in line for line in mine["lines"])
    # the chart ends at the Elo shown (which is rounded to a whole number)
    for shown in (page, mine):
        assert abs(shown["points"][-1]["elo"] - float(shown["elo"].rstrip("?"))) <= 0.5
    # /rating names the same figures
    rating = await _told(api, players[1], "/rating", "Rank in this chat")
    assert rating == caption
    assert (await client.get(f"chat/{GROUP}/standings?game=nope", 1)).status_code == 400
    assert (await client.get("profile/2?game=nope", 2)).status_code == 400


async def test_history_and_replays_of_both_games(mini, koira_ui) -> None:
    api, players, runner, client = mini
    coyote, koira = await both_games(mini, GROUP)
    history = (await client.get(f"chat/{GROUP}/history", 3)).json()
    assert [(g["id"], g["kind"], g["game"]) for g in history["games"]] == [
        (koira, "koira", "Koira"), (coyote, "coyote", "Coyote")]
    chat_text = await _told(api, players[0], "/history", "Last games in this chat")
    for g in history["games"]:
        assert f"#{g['id']} · {g['date']} · {g['label']}: " in chat_text, (g, chat_text)
    service = service_of(runner)
    for game_id in (coyote, koira):
        data = (await client.get(f"replay/{game_id}", 3)).json()
        assert len(data["steps"]) == len(data["kept"]) > 3
        game, log = await service.replay(game_id, GROUP)
        whole = [plain(line) for line in UIS[game.kind].replay_lines(game, log)]
        lines: list[str] = []
        replaced = 0
        for kept, new in zip(data["kept"], data["steps"], strict=True):
            assert kept <= len(lines) and new
            replaced += kept < len(lines)
            lines = lines[:kept] + new
        assert lines == whole, game.kind  # the last step shows the game's /replay lines
        assert data["kind"] == game.kind and data["game"] in ("Coyote", "Koira")
        # Coyote's lines only grow; a Koira trick line grows card by card and is replaced
        assert (replaced > 0) == (game.kind == "koira"), (game.kind, replaced)
    koira_data = (await client.get(f"replay/{koira}", 3)).json()
    assert any("koira" in line for line in koira_data["steps"][-1])


def test_replay_steps_keep_and_replace_lines() -> None:
    assert replay_steps([["a"], ["a"], ["a", "b"], ["a", "b2"], ["a", "b2", "c"]]) == (
        [["a"], ["b"], ["b2"], ["c"]], [0, 1, 1, 2], [0, 2, 3, 4])
    assert replay_steps([]) == ([], [], [])


def test_replay_marks_land_on_the_step_that_shows_them() -> None:
    # logged steps 0..4 shown by steps 0..3 (logged step 1 changed nothing)
    logged = [0, 2, 3, 4]
    assert replay_marks([(0, "R1"), (1, "R2"), (4, "R3")], logged) == [
        {"step": 0, "label": "R1"}, {"step": 1, "label": "R2"}, {"step": 3, "label": "R3"}]
    assert replay_marks([(2, "a"), (2, "b"), (9, "c")], logged) == [{"step": 1, "label": "b"}]


async def test_a_replay_jumps_to_rounds_and_tricks_and_shows_whose_cards(
        mini, koira_ui) -> None:
    """The replay names a step to jump to for each Coyote round and Koira trick, and shows
    the cards of a Coyote showdown and of a Koira play each with its owner."""
    api, players, runner, client = mini
    coyote, koira = await both_games(mini, GROUP)
    service = service_of(runner)
    data = (await client.get(f"replay/{coyote}", 3)).json()
    game, log = await service.replay(coyote, GROUP)
    rounds = [e["round"] for events in log for e in events if e["type"] == "round_dealt"]
    assert [m["label"] for m in data["marks"]] == [f"Round {n}" for n in rounds]
    for mark, n in zip(data["marks"], rounds, strict=True):
        assert f"— round {n} —" in data["steps"][mark["step"]], (mark, data["steps"])
    showdowns = [e for events in log for e in events if e["type"] == "showdown"]
    shown = [(step, c) for step, c in enumerate(data["cards"]) if c]
    assert len(shown) == len(showdowns) > 0 and len(data["cards"]) == len(data["steps"])
    names = {p.seat: p.name for p in game.seated}
    lines_at: list[list[str]] = []
    for kept, new in zip(data["kept"], data["steps"], strict=True):
        lines_at.append((lines_at[-1][:kept] if lines_at else []) + new)
    for (step, cards), showdown in zip(shown, showdowns, strict=True):
        # drawn under the showdown's line
        assert lines_at[step][cards["line"]].strip().startswith("cards "), cards
        owners = [names[s] for s in showdown["owners"]]
        owners += ["turned up"] * (len(showdown["cards"]) - len(owners))
        assert [c["name"] for c in cards["cards"]] == owners
        assert [c["card"]["label"] for c in cards["cards"]] == [
            card_label(c["card"]) for c in showdown["cards"]]
    data = (await client.get(f"replay/{koira}", 3)).json()
    game, log = await service.replay(koira, GROUP)
    tricks = [(e["phase"], e["trick"]) for events in log for e in events
              if e["type"] == "trick_started"]
    labels = [m["label"] for m in data["marks"]]
    assert labels[0] == "Phase 1 · trick 1" and len(labels) >= len(tricks) - 1
    assert set(labels) <= {f"Phase {p} · trick {t}" for p, t in tricks}
    assert [m["step"] for m in data["marks"]] == sorted({m["step"] for m in data["marks"]})
    lines_at = []
    for kept, new in zip(data["kept"], data["steps"], strict=True):
        lines_at.append((lines_at[-1][:kept] if lines_at else []) + new)
    for mark in data["marks"]:  # a trick's step shows its line, its first card played
        trick = mark["label"].rsplit(" ", 1)[1]
        assert any(line.startswith(f"{trick}. ") for line in data["steps"][mark["step"]]), (
            mark, lines_at[mark["step"]][-3:])
    names = {p.seat: p.name for p in game.seated}
    plays = [(names[e["seat"]], code) for events in log for e in events
             if e["type"] == "card_played" for code in e["cards"]]
    drawn = [(c["name"], c["card"]["code"]) for step in data["cards"] if step
             for c in step["cards"]]
    assert drawn == plays


async def test_the_league_pages_open_on_the_game_played_last(mini, koira_ui) -> None:
    """Right after a rated Koira game in a chat that never played Coyote, the standings and
    the profiles (the chat's and a player's own) open on Koira, not on an empty Coyote
    league; a game asked for is still shown."""
    api, players, runner, client = mini
    never = (await client.get(f"chat/{GROUP}/standings", 1))
    assert never.status_code == 403  # (nobody sat in a game here yet)
    koira = await rated_koira_game(runner, GROUP)
    assert await play_from_page(client, runner, players, koira.id) > 0
    await api.settle()
    standings = (await client.get(f"chat/{GROUP}/standings", 1)).json()
    assert standings["game"] == "koira" and len(standings["rows"]) == 3, standings
    for path, user in (("profile/1", 1), (f"profile/1?chat={GROUP}", 1),
                       (f"profile/2?chat={GROUP}", 1), ("profile/3", 3)):
        page = (await client.get(path, user)).json()
        assert page["game"] == "koira" and page["games"] == 1, (path, page)
        assert len(page["points"]) == 1
    coyote = (await client.get(f"chat/{GROUP}/standings?game=coyote", 1)).json()
    assert coyote["game"] == "coyote" and coyote["rows"] == []
    mine = (await client.get("profile/1?game=coyote", 1)).json()
    assert mine["game"] == "coyote" and mine["games"] == 0
