"""A group admin's /settings at its edges: what a change applies to (a lobby open, the next
/newgame), double and stale presses, other admins' changes, anonymous admins, a supergroup,
languages. Through the real Application and the fake Bot API on PostgreSQL, on a controlled
clock, with fixed seeds."""

from __future__ import annotations

from tests.e2e.harness import (
    labels,
    open_lobby,
    play_turn,
    wait_for,
)
from tests.e2e.messy_telegram_helpers import anonymous
from tests.e2e.settings_edges_helpers import (
    GROUP,
    HEADER,
    SUPERGROUP,
    ask,
    data_of,
    group,
    now,
    panel,
    plain,
    press,
    second_admin,
    service_of,
    until,
)
from tests.english_check import english_runs

# --- what a change applies to ---------------------------------------------------------------

async def test_policies_changed_while_a_lobby_is_open_reach_the_game_it_starts(
        pg_db, pg_url) -> None:
    """Ann opens a lobby; Bob and Cat join. Before she starts it, Ann (the admin) turns the
    group to 🔔 a note per move, "⏰ On timeout: removed" and a hard stand-in, on /settings,
    whose message says these are the "Defaults for new games". The lobby shows none of these
    (nobody can see or change them there), and its game has not begun: the game that starts
    a moment later is a new game. It runs with the policies of the moment the lobby opened
    (``chat_policies`` is read only by ``lobby_options`` when the lobby opens), and the
    admin is told nothing of it.
    So it was before the fix; the game now starts with the policies /settings has then."""
    async with group(pg_url) as (api, players, _clock, runner):
        ann = players[0]
        lobby = await open_lobby(api, players, GROUP)
        settings = await panel(api, ann)
        for starts in ("🔕 Group", "⏰ On timeout", "🤖 Stand-in level"):
            answer = await press(api, ann, settings, data_of(api, now(api, settings), starts))
            assert not answer.get("show_alert"), answer
        await press(api, ann, now(api, settings), data_of(api, now(api, settings),
                                                           "🤖 Stand-in level"))
        chosen = await service_of(runner).chat_settings(GROUP)
        assert (chosen["group_notes"], chosen["timeout_policy"], chosen["stand_in_level"]) \
            == ("every_move", "remove", "hard"), chosen
        await ann.press_and_settle(now(api, lobby), "▶️ Start")
        game = await service_of(runner).get(1)
        assert game.status == "running"
        used = {k: game.options[k] for k in ("group_notes", "timeout_policy", "stand_in_level")}
        assert used == {"group_notes": "every_move", "timeout_policy": "remove",
                        "stand_in_level": "hard"}, \
            f"the game started after the change runs with {used}"


# --- presses: double taps, stale messages, who may press ------------------------------------

async def test_a_double_tap_on_a_setting_moves_it_one_step(pg_db, pg_url) -> None:
    """Ann taps 🔕 Group twice before the keyboard is redrawn (both taps from the same old
    keyboard), and ⏱ Pace twice: each setting moves one step (the button carries the value
    it sets, not "next"), both taps are answered without an alert, and the keyboard shows
    the result."""
    async with group(pg_url) as (api, (ann, _bob, _cat), _clock, runner):
        settings = await panel(api, ann)
        for starts in ("🔕 Group", "⏱ Pace"):
            data = data_of(api, now(api, settings), starts)
            queries = [await ann.press_raw(GROUP, settings.message_id, data) for _ in range(2)]
            answers = [await api.wait_answer(q) for q in queries]
            await api.settle(quiet=0.1)
            assert not any(a.get("show_alert") for a in answers), answers
        chosen = await service_of(runner).chat_settings(GROUP)
        assert (chosen["group_notes"], chosen["pace"]) == ("every_move", "quick"), chosen
        shown = labels(api, now(api, settings))
        assert "🔔 Group: a note per move" in shown, shown
        assert any(s.startswith("⏱ Pace: quick") for s in shown), shown


async def test_a_stale_settings_message_pressed_after_another_admin_changed_the_edition(
        pg_db, pg_url) -> None:
    """Ann's /settings message shows Coyote's classic options (🎭 masks, 🔁 after a
    knock-out). Meanwhile Dan, another admin, sends /settings and sets the edition to
    poker-deck, which has neither. Ann then presses "Coyote · 🎭 Specials" on her message,
    a button the bot drew and still shows: she gets the alert "That button is not valid."
    and her message keeps the old keyboard, which every further press of those buttons
    refuses again (a game's stale press redraws the pressed message; a settings press only
    ever redraws after a success). The bot should redraw her message as the settings are
    now (and say they changed), or apply the press.
    So it was before the fix; now the message is redrawn, and a button names the option it sets."""
    async with group(pg_url) as (api, (ann, _bob, _cat), _clock, runner):
        dan = await second_admin(api, 14, "Dan", "en")
        old = await panel(api, ann)
        specials = data_of(api, old, "Coyote · 🎭")
        other = await panel(api, dan)
        for _ in range(2):  # classic → feathers → poker-deck
            answer = await press(api, dan, other, data_of(api, now(api, other),
                                                          "Coyote · 🃏"))
            assert not answer.get("show_alert"), answer
        assert (await service_of(runner).chat_settings(GROUP))["games"]["coyote"][
            "edition"] == "poker-deck"
        answer = await press(api, ann, old, specials)
        shown = labels(api, now(api, old))
        assert not answer.get("show_alert") or not any("🎭" in s for s in shown), (
            f"alert {answer.get('text')!r}; her message still offers {shown}")


async def test_a_stale_league_setting_press_sets_what_its_button_promised(pg_db, pg_url) -> None:
    """Ann's /settings message shows "🤖 Stand-in level: normal"; Dan, another admin, moves
    it to hard on his own message. Ann's press then sets the value her button led to (easy,
    the one after normal), without an alert, and redraws her keyboard as it is now."""
    async with group(pg_url) as (api, (ann, _bob, _cat), _clock, runner):
        dan = await second_admin(api, 14, "Dan", "en")
        old = await panel(api, ann)
        stale = data_of(api, old, "🤖 Stand-in level")
        other = await panel(api, dan)
        for _ in range(2):
            await press(api, dan, other, data_of(api, now(api, other), "🤖 Stand-in level"))
        assert (await service_of(runner).chat_settings(GROUP))["stand_in_level"] == "hard"
        answer = await press(api, ann, old, stale)
        assert not answer.get("show_alert"), answer
        assert (await service_of(runner).chat_settings(GROUP))["stand_in_level"] == "easy"
        assert "🤖 Stand-in level: easy" in labels(api, now(api, old)), labels(api, now(api, old))


async def test_a_settings_message_pressed_after_a_language_change_stays_one_language(
        pg_db, pg_url) -> None:
    """Ann's /settings message is in English (the group's language). She then sends
    /settings language ko (a new message, in Korean), and later taps "⏱ Pace" on the first
    message: only its keyboard is redrawn (``edit_markup``), in Korean, under the English
    text, so the group keeps a half-English, half-Korean message.
    So it was before the fix; a press now redraws text and keyboard together."""
    async with group(pg_url) as (api, (ann, _bob, _cat), _clock, _runner):
        await ask(api, ann, GROUP, "/settings language en")
        first = await panel(api, ann)
        await ask(api, ann, GROUP, "/settings language ko")
        answer = await press(api, ann, first, data_of(api, first, "⏱ Pace"))
        assert not answer.get("show_alert"), answer
        message = now(api, first)
        korean = [s for s in labels(api, message) if any("\uac00" <= c <= "\ud7a3" for c in s)]
        assert not (korean and HEADER in plain(message.text)), (
            f"text: {plain(message.text).splitlines()[0]!r}; buttons: {korean[:3]}")


async def test_a_settings_message_pressed_after_a_zone_change_names_the_zone_in_force(
        pg_db, pg_url) -> None:
    """Ann's /settings message says "League weeks in UTC". Dan, another admin, sends
    /settings timezone Asia/Seoul. Ann then taps "⏱ Pace" on her message: its keyboard is
    redrawn as the settings are now, but its text (not edited) still says the league's weeks
    are in UTC, right above the fresh buttons.
    So it was before the fix; a press now redraws text and keyboard together."""
    async with group(pg_url) as (api, (ann, _bob, _cat), _clock, _runner):
        dan = await second_admin(api, 14, "Dan", "en")
        first = await panel(api, ann)
        assert "League weeks in UTC" in plain(first.text)
        await ask(api, dan, GROUP, "/settings timezone Asia/Seoul")
        answer = await press(api, ann, first, data_of(api, first, "⏱ Pace"))
        assert not answer.get("show_alert"), answer
        message = now(api, first)
        assert any(s.startswith("⏱ Pace: quick") for s in labels(api, message))  # (redrawn)
        assert "Asia/Seoul" in plain(message.text), plain(message.text).splitlines()[1]


async def test_the_settings_keyboard_left_in_the_old_group_after_it_became_a_supergroup(
        pg_db, pg_url) -> None:
    """Ann sent /settings in the basic group; the group becomes a supergroup (its history,
    the settings message with its keyboard, stays in view). The supergroup keeps the
    settings (README: "keeps its games, league and settings"). Ann, still the admin, then
    presses "⏱ Pace" on the old message: she is told "Sorry, only the group's admins can
    change its settings." — the admin check asks Telegram about her in the old group's id,
    which Telegram refuses (the group was upgraded), and a failed look-up counts as "not an
    admin". Nothing tells her to send /settings again in the supergroup.
    So it was before the fix; an admin is now told to send /settings again."""
    async with group(pg_url) as (api, (ann, _bob, _cat), _clock, runner):
        await ask(api, ann, GROUP, "/settings timezone Europe/Madrid")
        old = await panel(api, ann)
        api.migrate_group(GROUP, SUPERGROUP)
        await until(lambda: service_of(runner).migrated_from(SUPERGROUP), GROUP)
        await api.settle(quiet=0.3)
        fresh = await panel(api, ann, SUPERGROUP)
        assert "Europe/Madrid" in plain(fresh.text), fresh.text  # (held: settings moved)
        answer = await press(api, ann, old, data_of(api, old, "⏱ Pace"))
        assert "only the group's admins" not in (answer.get("text") or ""), (
            f"the admin was told {answer.get('text')!r}")


async def test_a_settings_press_keeps_the_message_in_one_language(pg_db, pg_url) -> None:
    """A group with no language yet (no lobby opened): Ann (English app) sends /settings,
    drawn in English. Kim, another admin whose app is Korean, taps "⏱ Pace": the keyboard
    is redrawn in Korean under the English text (the press redraws in the presser's
    language while the group has none), so the one group message everyone reads is half
    English, half Korean; the next admin's tap switches the buttons again.
    So it was before the fix; the whole message is now redrawn in one language."""
    async with group(pg_url) as (api, (ann, _bob, _cat), _clock, _runner):
        kim = await second_admin(api, 15, "Kim", "ko")
        settings = await panel(api, ann)
        assert HEADER in plain(settings.text)
        answer = await press(api, kim, settings, data_of(api, settings, "⏱ Pace"))
        assert not answer.get("show_alert"), answer
        message = now(api, settings)
        korean = [s for s in labels(api, message) if any("\uac00" <= c <= "\ud7a3" for c in s)]
        assert not (korean and HEADER in plain(message.text)), (
            f"text: {plain(message.text).splitlines()[0]!r}; buttons: {korean[:3]}")


async def test_an_anonymous_admin_sets_the_time_zone_and_the_language(pg_db, pg_url) -> None:
    """An anonymous admin (sender_chat the group) sends /settings timezone and /settings
    language: both apply, and the answer comes in the new language."""
    async with group(pg_url) as (api, (ann, _bob, _cat), _clock, runner):
        before = len(api.bot_messages(GROUP))
        for text in ("/settings timezone asia/tokyo", "/settings language ja"):
            sent = len(api.bot_messages(GROUP))
            anonymous(api, GROUP, text)
            await wait_for(lambda sent=sent: len(api.bot_messages(GROUP)) > sent)
            await api.settle(quiet=0.05)
        chosen = await service_of(runner).chat_settings(GROUP)
        assert (chosen["timezone"], chosen["language"]) == ("Asia/Tokyo", "ja"), chosen
        answers = api.bot_messages(GROUP)[before:]
        assert "Asia/Tokyo" in plain(answers[-1].text) and "⚙️" in plain(answers[-1].text)
        assert HEADER not in plain(answers[-1].text), answers[-1].text


# --- languages --------------------------------------------------------------------------------

async def test_admin_texts_in_korean_japanese_and_spanish_have_no_english(pg_db, pg_url) -> None:
    """For each of ko, ja, es: ``/settings language X``, then what an admin and a member see
    around /settings and the league in the group: the settings message and its buttons, the
    usage hint, an unknown zone, a season out of range, a member's refusal, /pause with no
    game, /standings and /top with nothing rated. No English run is left in any."""
    async with group(pg_url) as (api, (ann, bob, _cat), _clock, _runner):
        found: dict[str, list[str]] = {}
        for language in ("ko", "ja", "es"):
            await ask(api, ann, GROUP, f"/settings language {language}")
            for sender, text in ((ann, "/settings"), (ann, "/settings color blue"),
                                 (ann, "/settings timezone Mars/Base"),
                                 (ann, "/settings season 0"), (bob, "/settings"),
                                 (ann, "/pause"), (ann, "/standings"), (ann, "/standings last"),
                                 (ann, "/top")):
                answer = await ask(api, sender, GROUP, text)
                runs = english_runs(answer.html or answer.text or "", language)
                runs += [label for label in labels(api, answer)
                         if english_runs(label, language, whole=True)]
                if runs:
                    found[f"{language} {text}"] = runs
        assert not found, found


async def test_a_language_switched_mid_game_reaches_the_table_at_the_next_move(
        pg_db, pg_url) -> None:
    """A game runs in English; Ann sets /settings language es. At the next move the group's
    table is drawn in Spanish (no English left), its 🎴 button too, while each player's
    private message stays in their own language (English)."""
    async with group(pg_url) as (api, players, _clock, runner):
        ann = players[0]
        lobby = await open_lobby(api, players, GROUP)
        await ann.press_and_settle(now(api, lobby), "▶️ Start")
        await ask(api, ann, GROUP, "/settings language es")
        assert await play_turn(api, players, GROUP)
        await api.settle(quiet=0.1)
        game = await service_of(runner).get(1)
        table = api.get_message(GROUP, game.table_message_id)
        assert table is not None
        names = tuple(p.first_name for p in players)
        runs = english_runs(table.html or table.text or "", "es", names)
        runs += [s for s in labels(api, table) if english_runs(s, "es", names, whole=True)]
        assert not runs, (runs, plain(table.text))
        mine = api.bot_messages(ann.id)[-1]  # (her own language: English words in it)
        assert english_runs(mine.html or mine.text or "", "es", names), plain(mine.text)



# --- the defaults reach new lobbies; languages in a lobby ---------------------------------------

async def test_the_default_edition_from_settings_reaches_a_plain_newgame(pg_db, pg_url) -> None:
    """Ann sets "Coyote · 🃏 Edition" to feathers and "Coyote · ❤️ Lives" to 4 on /settings
    (whose message says "Defaults for new games in this group"; README: /settings sets
    "each game's options"). The keyboard shows both. Her next plain /newgame gets the 4
    lives but is a classic lobby: the command always passes ``edition: classic`` when no
    edition is named (``CoyoteUI.new_game_options``), which outranks the chat's default, so
    the edition button changes nothing a /newgame opens.
    So it was before the fix; a plain /newgame now leaves the edition to /settings."""
    async with group(pg_url) as (api, (ann, _bob, _cat), _clock, runner):
        settings = await panel(api, ann)
        for starts in ("Coyote · 🃏", "Coyote · ❤️"):
            answer = await press(api, ann, settings, data_of(api, now(api, settings), starts))
            assert not answer.get("show_alert"), (starts, answer)
        shown = labels(api, now(api, settings))
        assert "Coyote · 🃏 Edition: feathers" in shown and "Coyote · ❤️ Lives: 4" in shown, \
            shown
        await ask(api, ann, GROUP, "/newgame")
        game = await service_of(runner).get(1)
        assert game.options["lives"] == 4, game.options  # (held)
        assert game.options["edition"] == "feathers", (
            f"/newgame opened {game.options['edition']!r}; the group's default is feathers")


async def test_koiras_defaults_from_settings_reach_the_next_lobby(pg_db, pg_url) -> None:
    """Ann sets Koira's shortest sequence to 3 and ties shared on /settings' buttons: the
    next /newgame koira has both, and its lobby shows them."""
    async with group(pg_url) as (api, (ann, _bob, _cat), _clock, runner):
        settings = await panel(api, ann)
        for starts in ("Koira · 🔗", "Koira · ⚖️"):
            answer = await press(api, ann, settings, data_of(api, now(api, settings), starts))
            assert not answer.get("show_alert"), (starts, answer)
        lobby = await ask(api, ann, GROUP, "/newgame koira")
        game = await service_of(runner).get(1)
        assert (game.options["min_sequence"], game.options["tie_split"]) == (3, True), \
            game.options
        shown = labels(api, now(api, lobby))
        assert "⚖️ Ties: share" in shown and "🔗 Sequences: 3+ cards" in shown, shown


async def test_a_language_set_while_a_lobby_is_open_redraws_it_at_the_next_join(
        pg_db, pg_url) -> None:
    """Ann opens a lobby (English); an admin sets /settings language ja; Bob joins: the lobby
    is drawn again, in Japanese, with no English left in its text or buttons."""
    async with group(pg_url) as (api, players, _clock, _runner):
        ann, bob, _cat = players
        lobby = await ask(api, ann, GROUP, "/newgame")
        await ask(api, ann, GROUP, "/settings language ja")
        await bob.press_and_settle(now(api, lobby), "✋ Join")
        current = now(api, lobby)
        names = tuple(p.first_name for p in players)
        runs = english_runs(current.html or current.text or "", "ja", names)
        runs += [s for s in labels(api, current) if english_runs(s, "ja", names, whole=True)]
        assert not runs, (runs, plain(current.text), labels(api, current))
