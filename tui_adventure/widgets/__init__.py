"""Widgets of the Textual app: they post messages up; their parents set attributes down."""
