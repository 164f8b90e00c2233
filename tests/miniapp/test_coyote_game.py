"""A whole Coyote game played from the Mini App alone, against the real bot (fake Bot API,
PostgreSQL): every move one of the controls the page drew, each told in the group as a
button press is; at the end every page shows the places and no control."""

from __future__ import annotations

from tests.e2e.harness import start_game, wait_for
from tests.miniapp.koira import service_of
from tests.miniapp.league import play_from_page

GROUP = -100444


async def test_a_whole_coyote_game_played_from_the_page_alone(mini) -> None:
    api, players, runner, client = mini
    await start_game(api, players, GROUP)
    moves = await play_from_page(client, runner, players, 1)
    assert moves > 3
    finished = await service_of(runner).get(1)
    assert finished.status == "finished"
    await wait_for(lambda: bool(api.find_messages(GROUP, "is over!")))
    await api.settle()
    assert (await service_of(runner).get(1)).told_version == finished.version
    for user in players:
        end = (await client.get("game/1", user.id)).json()
        assert end["over"] and end["controls"] == [] and end["game"]["deadline"] is None
        assert sorted(s["place"] for s in end["seats"]) == [1, 2, 3]
    # the group heard the showdowns the page's calls led to, as for a button press
    assert len(api.find_messages(GROUP, "Total:")) >= 2
