"""The largest and most awkward tables players make: 10 Coyote players and 8 Koira players
whose names are 64 characters long (Telegram's longest first name) with HTML specials,
right-to-left text, emoji flags and zero-width-joiner sequences, in a forum topic of a group
whose title is 128 characters long. What the bot shows must stay readable on a phone: a
name or title the bot shortens must not be cut inside one visible character (a grapheme
cluster: a flag is two regional indicators, a family emoji is several emoji joined by
U+200D), which shows a different or broken symbol before the "…"."""

from __future__ import annotations

import re

import httpx

from tests.e2e.harness import bot_table, private_turn_message, start_game, wait_for
from tests.fakebot.audit import Audit
from tests.fakebot.html_check import parse_html
from tests.miniapp.server import init_data, miniapp_server

GROUP = -100_4097
FLAG_NAME = ("01 " + "Ñ" * 43 + "🇯🇵" + "y" * 64)[:64]  # the 48-character cut ends at 🇯|🇵
FAMILY_NAME = ("02 " + "Ñ" * 42 + "👨\u200d👩\u200d👧" + "y" * 64)[:64]  # … ends at 👨‍|👩
SPANISH_NAME = ("03 " + "Ñ" * 19 + "🇪🇸" + "y" * 64)[:64]  # the Mini App's 24-character cut
TITLE = ("Coyote League " + "🇰🇷" * 64)[:128]  # the place line's 34-character cut: 🇰|🇷
BROKEN = re.compile(
    "\u200d(?=[…\u2069]|$)"  # a joiner left dangling (👨‍… shows 👨, not the family)
    "|(?<![\U0001F1E6-\U0001F1FF])(?:[\U0001F1E6-\U0001F1FF]{2})*[\U0001F1E6-\U0001F1FF]"
    "(?![\U0001F1E6-\U0001F1FF])")  # an odd run of regional indicators: half a flag


def broken(text: str) -> list[str]:
    """The spots of ``text`` where a grapheme cluster was cut (with some context)."""
    return [text[max(0, m.start() - 6):m.end() + 2] for m in BROKEN.finditer(text)]


def shown(params: dict) -> str:
    text = str(params.get("text") or "")
    return parse_html(text, strict_amp=False)[0] if params.get("parse_mode") == "HTML" \
        else text


async def test_shortened_names_and_titles_keep_whole_flags_and_emoji(pg_db, pg_url) -> None:
    """Three players whose 64-character names have 🇯🇵 across the 48th character, a
    family emoji (👨‍👩‍👧) across it, and 🇪🇸 across the 24th, start a game in a group whose
    128-character title is flags after its 14th character. Before the fix the lobby, the
    table and the final lines showed "ÑÑÑ🇯…" (a lone regional indicator, a boxed J on a
    phone) and "ÑÑÑ👨‍…" (a man, not the family), every private message's first line
    "👥 Coyote League 🇰🇷…🇰…" (half a flag), and the Mini App's seats "03 ÑÑÑ🇪…" (its
    cut at 24 characters, ``miniapp/text.clean_name``):
    ``render.common.plain_name`` (telegram_app/render/common.py:27) cuts by code points,
    ``name[:limit - 1]``, not by whole characters as players see them."""
    async with bot_table(pg_url, GROUP, TITLE, [FLAG_NAME, FAMILY_NAME, SPANISH_NAME]) as (
            api, players, runner):
        audit = Audit(api)
        await start_game(api, players, GROUP)
        await wait_for(lambda: any(private_turn_message(api, u) for u in players))
        await api.settle()
        async with miniapp_server(runner.app) as base:
            async with httpx.AsyncClient(timeout=30) as http:
                page = (await http.get(base + "api/game/1", headers={
                    "Authorization": "tma " + init_data(api.token, 3, SPANISH_NAME)})).json()
        audit.check()
        cuts = {}
        for request in api.requests:
            if request.method in ("sendMessage", "editMessageText") and \
                    (spots := broken(shown(request.params))):
                cuts.setdefault(request.params.get("chat_id"), set()).update(spots)
        seats = [s["name"] for s in page["seats"] if broken(s["name"])]
        assert not cuts and not seats, (
            f"names and the title cut inside a flag or an emoji: {cuts}; Mini App: {seats}")
