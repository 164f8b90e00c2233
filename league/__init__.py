"""Everything persistent and platform-free: models, the match service, ratings, standings.

Users and chats are plain ids and names here; nothing in this package knows Telegram exists.
"""
