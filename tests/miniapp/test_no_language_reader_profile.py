"""The profile pages of a player whose Telegram app sends no language (and who chose none
with /language), as ``test_no_language_reader`` (its Spanish group, its helpers): their own
profile (``/profile/<own id>``, the start parameter ``p``) reads in the language of the group
of their most recent game; a profile seen from a group's league (``?chat=<id>``) in that
group's language, once the reader may see that league. Nobody else learns a language from
it: a stranger's refusals are English."""

from __future__ import annotations

from tests.e2e.group_play_common import tr
from tests.e2e.spanish_group import GROUP, button
from tests.fakebot import FakeBotAPI
from tests.miniapp.test_no_language_reader import (  # noqa: F401  (api, spanish: fixtures)
    DANI,
    STRANGER,
    api,
    get,
    spanish,
)

ANA = 1
KOREAN = -100779


async def korean_game(fake: FakeBotAPI) -> None:
    """Ana makes a second group Korean with /settings; Dani opens game #2 there, Ana and
    Beto join it and Dani starts it: Dani's most recent game is now in a Korean group."""
    fake.add_group(KOREAN, "코요테의 밤", admins=[ANA])
    ana, dani = fake.users[ANA], fake.users[DANI]
    await ana.send(KOREAN, "/settings language ko")
    await fake.settle(quiet=0.05)
    await dani.send(KOREAN, "/newgame")
    await fake.settle(quiet=0.05)
    lobby = fake.find_messages(KOREAN, "#2")[-1].message_id
    for user in (ana, fake.users[2]):
        await user.press_and_settle(fake.get_message(KOREAN, lobby),
                                    button(fake, KOREAN, lobby, "✋"), quiet=0.02)
    await dani.press_and_settle(fake.get_message(KOREAN, lobby),
                                button(fake, KOREAN, lobby, "▶️"), quiet=0.05)


async def test_a_reader_with_no_language_reads_profiles_in_their_groups_language(
        spanish, api: FakeBotAPI) -> None:  # noqa: F811
    """Before the fix Dani (no language from his app) saw his own profile, and Ana's
    profile opened from the Spanish group's standings, in English, with the page's own
    words English too (``strings?start=p``), while the bot speaks Spanish to him about his
    games. Now his own profile reads in the language of the group of his most recent game
    (Spanish; Korean once his latest game is in a Korean group), and a profile seen from a
    league in that league's group's language, exactly as for an app in that language."""
    client, _cup = spanish
    for path in ["profile/3", "profile/3?chat=-1", f"profile/3?chat={GROUP}",
                 f"profile/1?chat={GROUP}"]:
        none = await get(client, path, DANI, None)
        assert none.status_code == 200, (path, none.text)
        english_app = (await get(client, path, DANI, "en")).json()
        assert none.json() == (await get(client, path, DANI, "es")).json() != english_app, path
    own = (await get(client, "profile/3", DANI, None)).json()
    assert own["title"] == tr("es", "Elo of {name}").format(name=own["name"]) != \
        f"Elo of {own['name']}"
    words = (await get(client, "strings?start=p", DANI, None)).json()
    assert words["lang"] == "es" and words == (await get(
        client, "strings?start=p", DANI, "es")).json()

    await korean_game(api)
    assert (await get(client, "game/2", DANI, None)).json()["game"]["status"] == "running"
    for path in ["profile/3", "profile/3?chat=-1", f"profile/3?chat={KOREAN}"]:
        none = await get(client, path, DANI, None)
        assert none.json() == (await get(client, path, DANI, "ko")).json() != (await get(
            client, path, DANI, "es")).json(), path
    assert (await get(client, "strings?start=p", DANI, None)).json()["lang"] == "ko"
    # seen from the Spanish league: that group's language, not that of his latest game
    for path in [f"profile/3?chat={GROUP}", f"profile/1?chat={GROUP}"]:
        none = await get(client, path, DANI, None)
        assert none.json() == (await get(client, path, DANI, "es")).json() != (await get(
            client, path, DANI, "ko")).json(), path


async def test_a_profile_tells_a_stranger_no_groups_language(spanish) -> None:  # noqa: F811
    """Before the fix (and after: it guards the fix) a stranger whose app sends no language
    got every profile refusal in English: Dani's profile without a chat, Dani's and Ana's
    seen from the Spanish league he never played in, and a mangled chat; his own profile
    (no game anywhere) and the words of the own-profile screen are English too. Dani's
    language and his group's stay his own."""
    client, _cup = spanish
    for path, code in [("profile/3", "profile_not_shared"),
                       (f"profile/3?chat={GROUP}", "league_members_only"),
                       (f"profile/1?chat={GROUP}", "league_members_only"),
                       ("profile/3?chat=x", "league_not_found"),
                       ("profile/99?chat=x", "league_not_found")]:
        refused = await get(client, path, STRANGER, None)
        assert refused.status_code in (403, 404), (path, refused.text)
        assert refused.json()["error"] == code, path
        english = (await get(client, path, STRANGER, "en")).json()
        assert refused.json() == english != (await get(client, path, STRANGER, "es")).json()
    own = await get(client, "profile/99", STRANGER, None)
    assert own.status_code == 200 and own.json() == (await get(
        client, "profile/99", STRANGER, "en")).json()
    assert (await get(client, "strings?start=p", STRANGER, None)).json()["lang"] == "en"
