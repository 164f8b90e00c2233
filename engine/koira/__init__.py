"""Koira, the Finnish beating game (``shared/rules/koira.md``)."""

from engine.koira.game import KoiraGame

__all__ = ["KoiraGame"]
