"""A scripted Coyote player from the group (its moves, the checks before each) and games."""

from __future__ import annotations

import random

from tests.e2e.group_coyote_helpers import (
    CODE_NAMES,
    COYOTE,
    Table,
    end_faults,
    expected_specials,
    final_faults,
    language_faults,
    live,
    move_buttons,
    off_turn_faults,
    offered_specials,
    open_table,
    own_card_faults,
    ping_faults,
    refetch,
    table_faults,
    turn_message,
)
from tests.e2e.group_play_common import current
from tests.fakebot import FakeUser, StoredMessage


async def choose_and_press(t: Table, rng: random.Random, game, user: FakeUser,
                           message: StoredMessage, prefer_special: float) -> None:
    """Pick among the offered buttons: a special (with its second keyboard) with
    probability ``prefer_special``, else a low bid or, when the bid looks high, 🐺 Coyote!
    (confirmed with Yes)."""
    api = t.api
    buttons = move_buttons(api, message)
    specials = [(lab, d) for lab, d in buttons if d.split(":")[0] in ("x", "k", "g")]
    bids = [(int(d.split(":")[3]), d) for _l, d in buttons
            if d.startswith("b:") and d.count(":") == 3]
    call = next((d for _l, d in buttons if d.split(":")[0] in ("c", "cc")), None)
    seat = game.player(user.id).seat
    if specials and rng.random() < prefer_special:
        label, data = rng.choice(specials)
        name = "guess" if data.startswith("g:") else CODE_NAMES[int(data.split(":")[3])]
        t.used[name] = t.used.get(name, 0) + 1
        answer = await user.press_and_settle(message, data, quiet=0.02)
        if answer.get("show_alert"):
            t.faults.append(f"v{game.version}: {name} answered with an alert {answer!r}")
            return
        if data.startswith("x:"):
            return
        current_msg = refetch(api, message)
        if current_msg is None:
            t.faults.append(f"v{game.version}: the message went after pressing {label}")
            return
        second = move_buttons(api, current_msg)
        if data.startswith("g:"):
            options = [d for _l, d in second if d.startswith("q:")]
        elif name in ("draw1", "shot"):
            options = [d for _l, d in second if d.startswith("m:") and d.count(":") == 4]
        else:
            options = [d for _l, d in second if d.startswith("b:") and d.count(":") == 4]
        if not options:
            t.faults.append(f"v{game.version}: {name}'s second keyboard offers nothing: "
                            f"{second}")
            return
        choice = rng.choice(options) if data.startswith("g:") else options[0]
        answer = await user.press_and_settle(current_msg, choice, quiet=0.02)
        if answer.get("show_alert"):
            t.faults.append(f"v{game.version}: {name} (2nd) answered with an alert {answer!r}")
            return
        if name in ("draw1", "shot"):
            current_msg = refetch(api, current_msg)
            bids2 = [d for _l, d in move_buttons(api, current_msg)
                     if d.startswith("b:") and d.count(":") == 4]
            if not bids2:
                t.faults.append(f"v{game.version}: {name}: no bids after the target")
                return
            answer = await user.press_and_settle(current_msg, bids2[0], quiet=0.02)
            if answer.get("show_alert"):
                t.faults.append(f"v{game.version}: {name} bid answered {answer!r}")
        return
    state = game.state
    visible = 0
    view = COYOTE.view(state, seat)
    for c in view["cards"]:
        if c is not None and c.lstrip("-").isdigit():
            visible += int(c)
    last = state["bids"][-1][1] if state["bids"] else 0
    if call and (not bids or last > visible + 3 or rng.random() < 0.15):
        answer = await user.press_and_settle(message, call, quiet=0.02)
        if answer.get("show_alert"):
            t.faults.append(f"v{game.version}: 🐺 answered with an alert {answer!r}")
            return
        if call.startswith("cc:"):
            current_msg = refetch(api, message)
            yes = next((d for _l, d in move_buttons(api, current_msg) if d.startswith("c:")),
                       None) if current_msg is not None else None
            if yes is None:
                t.faults.append(f"v{game.version}: 🐺 asked for no confirmation on "
                                f"{'its ephemeral' if message.is_ephemeral else 'the'} "
                                f"message")
                return
            answer = await user.press_and_settle(current_msg, yes, quiet=0.02)
            if answer.get("show_alert"):
                t.faults.append(f"v{game.version}: Yes answered with an alert {answer!r}")
        return
    data = bids[0][1] if rng.random() < 0.7 else rng.choice(bids)[1]
    answer = await user.press_and_settle(message, data, quiet=0.02)
    if answer.get("show_alert"):
        t.faults.append(f"v{game.version}: a bid answered with an alert {answer!r}")


async def play_one(t: Table, rng: random.Random, prefer_special: float = 0.5) -> bool:
    """The player to act (a human) moves; ``False`` once the game is over."""
    game = await current(t)
    if game.status != "running":
        return False
    seat = COYOTE.current_seat(game.state)
    player = game.at_seat(seat)
    if player.is_ai:  # (the bot plays it: wait for the version to move)
        for _ in range(300):
            now = await current(t)
            if now.version != game.version or now.status != "running":
                return True
        raise AssertionError("the computer player did not move")
    user = t.user(player.user_id)
    assert user is not None
    message = await turn_message(t, user, game.version)
    t.faults += own_card_faults(t, game, user, message)
    t.faults += off_turn_faults(t, game, user)
    t.faults += ping_faults(t, game, user)
    t.faults += table_faults(t, game)
    expected = expected_specials(game, seat)
    offered = offered_specials(t.api, message)
    t.offered |= offered
    if expected != offered:
        t.faults.append(f"v{game.version}: specials offered {sorted(offered)}, the rules "
                        f"allow {sorted(expected)}")
    await choose_and_press(t, rng, game, user, message, prefer_special)
    after = await current(t)
    if after.version == game.version:
        t.faults.append(f"v{game.version}: {user.first_name}'s move did nothing")
        raise AssertionError(t.faults)
    if after.status == "running" and user.id in t.group_only and \
            COYOTE.current_seat(after.state) != seat:
        eph = live(t.api, user)
        if move_buttons(t.api, eph):
            t.faults.append(f"v{after.version}: {user.first_name}'s ephemeral message keeps "
                            f"move buttons after their turn")
    t.last_human = user.id
    t.turns += 1
    assert t.turns < 500
    return True


async def play_game(t: Table, seed: int, prefer_special: float = 0.5) -> None:
    rng = random.Random(seed)
    while await play_one(t, rng, prefer_special):
        pass
    await t.api.settle(quiet=0.2)


async def sweep(api, url, language, command, started, specials, ai, seed,
                keep=lambda f: True) -> list[str]:
    t = await open_table(api, url, language, started, command=command, specials=specials,
                         ai=ai, seed=seed)
    try:
        await play_game(t, seed)
        game = await current(t)
        assert game.status == "finished"
        assert t.used or not specials, "no special action was tried"
        return [f for f in t.faults if keep(f)] + end_faults(t) + language_faults(t) + \
            final_faults(t, game)
    finally:
        await t.runner.stop()
