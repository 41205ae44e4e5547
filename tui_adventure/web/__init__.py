"""The app in a browser: ``adventure study --serve``, ``adventure play --serve`` (``server.py``) and
``adventure watch --serve`` (``plain.py``: one command, no visitors to admit) (extra ``[web]``).

textual-serve runs one app process per browser session and relays the
terminal between it and xterm.js in the page; ``server.py`` adds what a
study open to strangers needs: who may come (the link's participant),
bounds, and nothing from a URL reaching a shell.
"""
