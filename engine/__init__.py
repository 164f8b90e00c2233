"""Pure game rules: no I/O, no clock, no global randomness.

Every game implements :class:`engine.core.Game`; states are plain data that round-trip through
JSON. Randomness comes from :func:`engine.core.rng_for`, derived from the game's seed and the
step number, so replaying the stored actions rebuilds the same state.
"""

from engine.core import (
    GAME_OVER,
    PLAYER_REMOVED,
    ROUND_OVER,
    TRICK_OVER,
    TURN_ENDING_EVENTS,
    Action,
    Event,
    Game,
    OptionSpec,
    RuleError,
    rng_for,
    step_of,
)

__all__ = ["GAME_OVER", "PLAYER_REMOVED", "ROUND_OVER", "TRICK_OVER",
           "TURN_ENDING_EVENTS", "Action", "Event", "Game", "OptionSpec", "RuleError", "rng_for",
           "step_of"]

from engine.coyote import CoyoteGame  # noqa: E402  (the registry needs the games)
from engine.koira import KoiraGame  # noqa: E402

GAMES: dict[str, Game] = {"coyote": CoyoteGame(), "koira": KoiraGame()}
"""Every game by name, as the :class:`engine.core.Game` interface."""

__all__ += ["GAMES"]
