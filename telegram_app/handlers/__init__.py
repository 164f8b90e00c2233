"""Update handlers: short functions that decode an update, call the league, then render."""
