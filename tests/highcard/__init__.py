"""High card: a toy game that proves a game plugs in through the two registries only."""
