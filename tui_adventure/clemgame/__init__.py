"""Our worlds as a clembench game, played under clemcore's own runner (``clem run``).

``adventure export clemgame`` writes the game folder (``export/clemgame.py``): its
``in/instances.json`` names the worlds (``instances.py``), and its ``master.py`` is one import of
``master.py`` here, so the game master that clemcore runs is this package's, installed, never a copy.
Only ``master.py`` imports clemcore; nothing in the package imports it.
"""
