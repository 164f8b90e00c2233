"""Persistence: the database, its tables, sessions, snapshots and the inbox."""
