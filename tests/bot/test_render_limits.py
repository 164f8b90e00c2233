"""Callback data, keyboards and texts within Telegram's limits, and valid HTML for any name."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from telegram_app.callbacks import ARITY, Callback, parse
from telegram_app.games.coyote import notes
from telegram_app.games.coyote import screens as render
from telegram_app.games.coyote.keyboards import mod_of, move_rows, unmod
from telegram_app.keyboards import lobby_keyboard, table_keyboard
from telegram_app.render import common
from tests.bot.render_helpers import _game
from tests.fakebot import parse_html

HOSTILE_NAMES = ['<b>Ann</b> & "Co"', "דני הגדול", "x" * 64, "</a><a href='x'>", "&amp;lt;",
                 "مرحبا بك", "🙂" * 30, "Cat_*[x](y)`z`", "Bo\u202eb", "  "]


@pytest.mark.parametrize("data", ["", "j", "j:", "j:1:2", "b:1:2", "b:1:2:3:4:5", "c:1:2:3",
                                  "j:1:2:3", "z:1", "b:-1:2:3", "j:1" + "0" * 20, "b:1:2:x",
                                  "p:1\n", None])
def test_malformed_callback_data_is_refused(data: str | None) -> None:
    assert parse(data) is None


@given(st.sampled_from(sorted(ARITY)), st.integers(1, 10**12 - 1),
       st.lists(st.integers(0, 10**12 - 1), min_size=3, max_size=3), st.data())
def test_callback_data_round_trips_within_64_bytes(verb, game_id, numbers, data) -> None:
    arity = data.draw(st.sampled_from(ARITY[verb]))
    cb = Callback(verb, game_id, tuple(numbers[:arity]))
    encoded = cb.encode()
    assert len(encoded.encode()) <= 64
    assert parse(encoded) == cb


@pytest.mark.parametrize("special", ["double", "draw1", "shot"])
def test_bid_masks_round_trip(special: str) -> None:
    target = None if special == "double" else 9
    assert unmod(mod_of(special, target)) == (special, target)


def test_peek_alert_fits_at_ten_players_with_long_names() -> None:
    names = ["W" * 64 + str(i) for i in range(10)]
    game = _game(10, names=names)
    for seat in range(10):
        text = render.peek_alert(game, seat)
        assert len(text) <= 200
        assert text.count(":") == 1 + 9


@settings(max_examples=40, deadline=None)
@given(st.lists(st.sampled_from(HOSTILE_NAMES) | st.text(min_size=1, max_size=70),
                min_size=3, max_size=10))
def test_every_message_is_valid_telegram_html(names: list[str]) -> None:
    game = _game(len(names), names=names, bids=[[0, 4], [1, 9]])
    texts = [render.lobby_text(game, set()), render.table_text(game, mention=True),
             render.private_text(game, 0), notes.turn_line(game) or "",
             "\n".join(notes.step_lines(game, [{"type": "bid_placed", "seat": 1,
                                                      "amount": 9}]))]
    for text in texts:
        plain, _ = parse_html(text)
        assert 0 < len(plain) <= 4096


def test_keyboards_stay_within_limits() -> None:
    game = _game(10, bids=[[0, 999_999_990]])
    for markup in (table_keyboard(game), lobby_keyboard(game, "coyote_league_bot")):
        buttons = [b for row in markup.inline_keyboard for b in row]
        assert len(buttons) <= 100
        assert all(len(row) <= 8 for row in markup.inline_keyboard)
        assert all(len((b.callback_data or "").encode()) <= 64 for b in buttons)


def test_bids_stop_at_the_bots_maximum() -> None:
    from engine.coyote.editions import MAX_BID

    near = _game(4, bids=[[0, MAX_BID - 3]])
    data = [b.callback_data for row in move_rows(near) for b in row]
    bids = [int(d.split(":")[3]) for d in data if d.startswith("b:")]
    assert bids == [MAX_BID - 2, MAX_BID - 1, MAX_BID] and all(parse(d) for d in data)
    at_max = _game(4, bids=[[0, MAX_BID]])
    data = [b.callback_data for row in move_rows(at_max) for b in row]
    assert not [d for d in data if d.startswith(("b:", "m:"))]
    assert any(d.startswith("c:") for d in data)  # only Coyote! is left


def test_a_long_round_keeps_messages_within_telegrams_limit() -> None:
    names = ["W" * 64 + str(i) for i in range(10)]
    bids = [[i % 10, 10**9 + i] for i in range(500)]
    game = _game(10, names=names, bids=bids)
    texts = [render.private_text(game, seat) for seat in range(10)]
    for text in texts:
        assert len(text) <= 4096
        assert parse_html(text)  # still whole, valid HTML
        assert str(10**9 + 499) in text and str(10**9) not in text  # the latest bids only
    for text in (render.table_text(game, mention=True), render.table_text(game)):
        assert len(text) <= 4096 and parse_html(text)  # (the table lists no bids)


def test_fit_lines_counts_what_telegram_counts_and_keeps_the_chosen_end() -> None:
    """A message is measured after parsing (a mention's link and "&amp;" count as their
    text); what does not fit goes behind "…", never half a tag: the oldest lines, the
    newest, or the middle (the first line and the end stay)."""
    mention = '<a href="tg://user?id=123456789">A &amp; B</a>'
    assert common.visible_length(mention) == len("A & B")
    lines = [mention] * 500  # 3,000 characters as Telegram counts them, 23,000 of HTML
    assert common.fit_lines(lines) == "\n".join(lines)
    numbered = [f"<b>{i:03d}</b>" for i in range(100)]  # 3 characters each, 4 with "\n"
    assert common.fit_lines(numbered, 40).split("\n") == ["…", *numbered[-9:]]
    assert common.fit_lines(numbered, 40, keep="first").split("\n") == [*numbered[:9], "…"]
    ends = common.fit_lines(numbered, 40, keep="ends").split("\n")
    assert ends == [numbered[0], *numbered[1:5], "…", *numbered[-4:]]
    assert common.visible_length("\n".join(ends)) <= 40
