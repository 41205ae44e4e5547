"""The app in a browser: ``adventure study --serve``, ``adventure play --serve`` and ``adventure watch --serve``
(``server.py``, extra ``[web]``).

One app process per browser session, relayed between the process and
xterm.js in the page (textual-serve's static files); ``server.py`` adds what a
page open to strangers needs: who may come (a study link's participant),
bounds on sessions, input, processes and time, and nothing from a URL
reaching a shell. ``visitor.py`` is what a visitor's process does to itself
first (limits, dying with the server); ``driver.py`` the driver it runs with.
"""
