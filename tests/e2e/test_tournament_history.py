"""A finished tournament in the league's chat texts, through the real Application and the fake
Bot API: /history lists the sender's tournaments of the group (their place of n), in the
private chat those of every group by name; /rating and /profile list them on the card (with
the player's rank in the group, which a private chat's card has no line for)."""

from __future__ import annotations

import re

from tests.e2e.harness import bot_table, wait_for
from tests.fakebot import FakeBotAPI
from tests.miniapp.tournaments import finished_tournament

GROUP = -100463
TITLE = "Cup <night>"  # (escaped wherever it is shown)
ISOLATES = str.maketrans("", "", "\u2068\u2069")


def _found(api: FakeBotAPI, chat_id: int, expect: str, kind: str = "text") -> list[str]:
    """The texts (captions) of the bot's messages of ``kind`` in the chat holding
    ``expect``, names read without their bidi isolates."""
    texts = [(m.text or "").translate(ISOLATES) for m in api.bot_messages(chat_id)
             if m.kind == kind]
    return [t for t in texts if expect in t]


async def _ask(api: FakeBotAPI, user, chat_id: int, command: str, expect: str) -> str:
    before = len(_found(api, chat_id, expect))
    await user.send(chat_id, command)
    await wait_for(lambda: len(_found(api, chat_id, expect)) > before)
    return _found(api, chat_id, expect)[-1]


def _line(text: str, tournament_id: int) -> str:
    return next(line for line in text.splitlines() if line.startswith(f"🏆 #{tournament_id} · "))


async def test_history_rating_and_profile_list_a_finished_tournament(pg_db, pg_url) -> None:
    async with bot_table(pg_url, GROUP, TITLE, ["Ann", "Bob", "Cat"]) as (api, players, runner):
        ann, bob, cat = players
        cup = await finished_tournament(runner, GROUP, TITLE)
        await api.settle()
        place = {s.entry.user_id: s.place for s in cup.standings}

        history = await _ask(api, ann, GROUP, "/history", "Tournaments of Ann")
        assert "Last games in this chat" in history
        line = _line(history, cup.id)
        # (#id · day · game: place p of n; the group's own message names no group)
        shape = rf"🏆 #{cup.id} · [^·]+ · Coyote · classic: place {place[1]} of 6"
        assert re.fullmatch(shape, line), line
        assert TITLE not in line
        assert history.index("Tournaments of Ann") < history.index("/replay ID")

        # In the private chat: every group's, by name.
        private = await _ask(api, ann, ann.id, "/history", "Your tournaments")
        assert _line(private, cup.id).endswith(f" · {TITLE}: place {place[1]} of 6")
        assert "Send /history in a group for its last games." in private

        card = await _ask(api, bob, GROUP, "/rating", "Rated games")
        assert "🏆 Tournaments" in card
        assert _line(card, cup.id).endswith(f": place {place[2]} of 6")
        assert "Rank in this chat: " in card  # (the group's rank; "–": unranked in it)

        await cat.send(GROUP, "/profile")
        await wait_for(lambda: bool(_found(api, GROUP, "Tournaments", "photo")))
        caption = _found(api, GROUP, "Tournaments", "photo")[-1]
        assert _line(caption, cup.id).endswith(f": place {place[3]} of 6")
        assert "Rank in this chat: " in caption

        # A private chat ranks nobody: its card has no such line.
        mine = await _ask(api, bob, bob.id, "/rating", "Rated games")
        assert "Rank in this chat" not in mine and "Overall rank: " in mine, mine
        await cat.send(cat.id, "/profile")
        await wait_for(lambda: bool(_found(api, cat.id, "Rated games", "photo")))
        caption = _found(api, cat.id, "Rated games", "photo")[-1]
        assert "Rank in this chat" not in caption and "Overall rank: " in caption, caption
