"""The update path's Telegram end: the intake, the web server, the messenger, the rate limiter,
the HTTP backend and the scheduler's ticker (DEVELOPERS.md: "From an update to its messages")."""
