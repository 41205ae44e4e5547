"""Screens of the Textual app, one per file."""
