"""Tournaments: Swiss rounds of multiplayer tables in a group."""
