"""The pure-Python core: world model, rules, parser, goals, planner, snapshots.

Nothing in this package may import a UI library (textual, rich, prompt_toolkit):
front ends come and go, the engine is what every one of them shares.
"""
