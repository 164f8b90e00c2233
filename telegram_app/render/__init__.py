"""Message texts (Telegram HTML) and inline keyboards, built from league snapshots."""
