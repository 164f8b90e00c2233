"""Tournaments in the group, the bot's side: ``/tournament``, the sign-up message and its
buttons, the announcement of each round and the final one, ``/rules tournament``. The
tournaments themselves (sign-up, Swiss rounds, scoring, the tick) are the league's
(``league/tournaments/``); this package turns them into messages.

- ``handlers.py``: the command and the button presses (verbs in ``keyboards.py``);
- ``drawing.py``: the sign-up message, sent once and edited after each change;
- ``announcements.py``: the tick (the league's ``advance_tournaments``) and the messages it
  owes the group, with ``news.py`` their texts;
- ``texts.py``: the sign-up message's and ``/tournament``'s texts, ``words.py`` the words
  they share, ``rules.py`` the ``/rules tournament`` text;
- ``memory.py``: what one process keeps (a lock per tournament).
"""
