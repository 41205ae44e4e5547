"""The game master: the episode loop every front end runs, and the interpreter behind it.

Front-end agnostic and free of UI libraries (an import-linter contract checks
it): the app, the REPL and batches all drive ``episode.play_turn``; none of
them re-implements turn logic, scoring or recording.
"""
