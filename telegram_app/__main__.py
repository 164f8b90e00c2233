"""Entry point: ``python -m telegram_app`` (see :func:`telegram_app.app.main`)."""

from telegram_app.app import main

if __name__ == "__main__":
    main()
