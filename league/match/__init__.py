"""The match service's parts: lobbies, moves, outcomes, names, chats, alerts and the sweeper."""
