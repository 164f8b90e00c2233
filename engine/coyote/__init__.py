"""Coyote, every edition. ``score`` scores a showdown on its own; ``CoyoteGame`` plays a game."""

from engine.coyote.editions import EDITIONS, Edition, get_edition
from engine.coyote.game import BID_WINDOW, CoyoteGame
from engine.coyote.scoring import CardScore, Showdown, score

__all__ = ["BID_WINDOW", "EDITIONS", "CardScore", "CoyoteGame", "Edition", "Showdown",
           "get_edition", "score"]
