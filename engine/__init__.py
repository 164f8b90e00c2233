"""Pure game rules: no I/O, no clock, no global randomness.

Every game implements :class:`engine.core.Game`; states are plain data that round-trip through
JSON. Randomness comes from :func:`engine.core.rng_for`, derived from the game's seed and the
step number, so replaying the stored actions rebuilds the same state.
"""

from engine.core import Action, Event, Game, RuleError, rng_for

__all__ = ["Action", "Event", "Game", "RuleError", "rng_for"]

from engine.coyote import CoyoteGame  # noqa: E402  (the registry needs the games)

GAMES: dict[str, Game] = {"coyote": CoyoteGame()}
"""Every game by name, as the :class:`engine.core.Game` interface."""

__all__ += ["GAMES"]
