"""Project-wide checks: import contracts, migrations matching the models, the translation
catalog holding every user-facing string."""

from __future__ import annotations

import logging
from pathlib import Path

from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from babel.messages.extract import extract_from_dir
from babel.messages.pofile import read_po
from importlinter.cli import lint_imports
from sqlalchemy import create_engine

from league.store.db import sync_url
from league.store.models import Base

ROOT = Path(__file__).resolve().parent.parent


def test_import_contracts_hold(monkeypatch) -> None:
    monkeypatch.chdir(ROOT)
    # import-linter configures logging and so disables every logger that exists: a later
    # test in this process would miss the bot's log lines (``caplog``) and fail.
    loggers = [lg for lg in logging.root.manager.loggerDict.values()
               if isinstance(lg, logging.Logger) and not lg.disabled]
    try:
        assert lint_imports(no_cache=True) == 0
    finally:
        for logger in loggers:
            logger.disabled = False


MYPY_PACKAGES = ["engine", "league", "telegram_app"]
"""The packages mypy checks here and in ``make lint`` (``[tool.mypy]`` in pyproject.toml)."""


def test_mypy_is_clean(monkeypatch) -> None:
    """mypy finds no error in :data:`MYPY_PACKAGES`, with the project's configuration.

    Incremental, as ``make lint`` runs it (the same .mypy_cache): mypy checks again every
    module whose source (by hash) or dependencies changed and repeats the errors it cached,
    so the verdict is the same; a warm run takes ~1 s instead of ~16 s."""
    from mypy import api

    monkeypatch.chdir(ROOT)
    out, err, status = api.run([a for p in MYPY_PACKAGES for a in ("-p", p)])
    assert status == 0, out + err


def test_migrations_match_models(pg_url: str) -> None:
    engine = create_engine(sync_url(pg_url))
    with engine.connect() as conn:
        diff = compare_metadata(MigrationContext.configure(conn), Base.metadata)
    engine.dispose()
    assert diff == [], f"models and migrations differ; add a migration: {diff}"


def test_every_user_facing_string_is_in_the_catalog() -> None:
    extracted = {
        message if isinstance(message, str) else message[0]
        for _, _, message, _, _ in extract_from_dir(
            ROOT / "telegram_app", keywords={"_": None, "n_": (1, 2)})
    }
    po = ROOT / "telegram_app" / "locales" / "en" / "LC_MESSAGES" / "messages.po"
    with po.open("rb") as fh:
        catalog = {m.id if isinstance(m.id, str) else m.id[0] for m in read_po(fh) if m.id}
    missing = extracted - catalog
    assert not missing, f"run `make messages`; missing from the catalog: {sorted(missing)[:5]}"
    assert len(extracted) > 50


# --- no game's words outside its own package ------------------------------------------------
# So that a game is added by its own files alone, no module in league/, telegram_app/ or
# engine/ outside a game's own files names that game's rules: its state keys, events, options
# or refusal codes. Checked on the code (names, attributes, keywords and string literals, split
# into words), not on comments or docstrings, which may give a game as an example.

GAME_WORDS: dict[str, set[str]] = {
    "coyote": {
        # state keys and options (engine/coyote: game.py, editions.py)
        "lives", "max_lives", "edition", "editions", "specials", "after_elimination",
        "masks", "coins", "coin_turn", "must_bid", "pass_blocked", "draw1_used", "bids",
        "min_bid", "max_bid",
        # events
        # (not "round_ended": that is engine.core's ROUND_OVER, every game's)
        "bid_placed", "bid_changed", "coyote_called", "showdown", "round_dealt",
        "life_lost", "player_eliminated", "special_used",
        # refusal codes
        "bid_too_low", "bid_too_high", "mask_used", "coin_used", "no_bid_to_call", "own_bid",
        "unknown_edition", "bad_lives", "lives_need_fewer_players", "coins_two_players",
        "must_answer_change", "guess_not_allowed",
        # the kind itself, as a string (imports of its package are the registries')
        "coyote",
    },
    "koira": {
        "tie_split", "trump_ends_trick", "pickup_single", "min_sequence", "trick_started",
        "trick_shared", "trump_revealed", "phase_changed", "picked_up", "cards_drawn",
        "player_out", "lead_trump", "trump_card", "round_from", "round_seats", "last_winner",
        "trick_no", "koira",
    },
}
"""Each game's words, compared with whole words (``_``-joined words are one word) of the
code, in any letter case."""

GAME_HOMES: dict[str, tuple[str, ...]] = {
    "coyote": ("engine/coyote/", "telegram_app/games/coyote/"),
    "koira": ("engine/koira/", "telegram_app/games/koira/"),
}
"""Where each game's words belong."""

WORDS_ALLOWED: dict[tuple[str, str], set[str]] = {
    # The registries: a game's line in each (its kind, its adapter).
    ("engine/__init__.py", "coyote"): {"coyote"},
    ("engine/__init__.py", "koira"): {"koira"},
    # The product's name: the bot_data key, the default database file, the help and start
    # texts, /newgame's command description (the metrics' prefix is a longer word,
    # "coyote_updates", so it is no match).
    ("telegram_app/services.py", "coyote"): {"coyote"},
    ("league/store/db.py", "coyote"): {"coyote"},
    ("telegram_app/app.py", "coyote"): {"coyote"},
    # The product's name in /start's and /help's texts (each game adds its own line:
    # GameUI.help_lines).
    ("telegram_app/render/texts.py", "coyote"): {"coyote"},
    # The page's label of the claims row ("Bids"; Coyote's adapter is the one that fills it),
    # in the page's one table of strings.
    ("telegram_app/miniapp/strings.py", "coyote"): {"bids"},
}
"""``(module, game) → words`` a module outside the game's home may name, each with its
reason."""


def _code_words(source: str) -> set[str]:
    """The words of a module's code: identifiers, attribute and keyword names, the parts of
    the modules it imports, and the words of its string literals other than docstrings,
    lower-cased."""
    import ast
    import re

    tree = ast.parse(source)
    docstrings = {id(node.body[0].value) for node in ast.walk(tree)
                  if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef,
                                       ast.AsyncFunctionDef))
                  and node.body and isinstance(node.body[0], ast.Expr)
                  and isinstance(node.body[0].value, ast.Constant)
                  and isinstance(node.body[0].value.value, str)}
    # an attribute's docstring (a string statement after an assignment) is a docstring too
    docstrings |= {id(node.value) for node in ast.walk(tree) if isinstance(node, ast.Expr)
                   and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)}
    words: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and \
                id(node) not in docstrings:
            words |= set(re.findall(r"\w+", node.value))
        elif isinstance(node, ast.Name):
            words.add(node.id)
        elif isinstance(node, ast.Attribute):
            words.add(node.attr)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            words.add(node.name)
        elif isinstance(node, ast.arg):
            words.add(node.arg)
        elif isinstance(node, ast.keyword) and node.arg:
            words.add(node.arg)
        elif isinstance(node, ast.ImportFrom) and node.module:
            words |= set(node.module.split("."))
        elif isinstance(node, ast.Import):
            words |= {part for alias in node.names for part in alias.name.split(".")}
    return {w.lower() for w in words}


def test_no_game_words_outside_the_games_packages() -> None:
    """No module of engine/, league/ or telegram_app/ outside a game's home names one of
    :data:`GAME_WORDS`'s words of that game, but for :data:`WORDS_ALLOWED`."""
    found = []
    for package in ("engine", "league", "telegram_app"):
        for path in sorted((ROOT / package).rglob("*.py")):
            name = path.relative_to(ROOT).as_posix()
            words = _code_words(path.read_text(encoding="utf-8"))
            for game, game_words in GAME_WORDS.items():
                if name.startswith(GAME_HOMES[game]):
                    continue
                named = (words & game_words) - WORDS_ALLOWED.get((name, game), set())
                if named:
                    found.append(f"{name} names {game}'s {sorted(named)}")
    assert not found, "\n".join(found)
