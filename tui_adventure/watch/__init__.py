"""``adventure watch``: what a records tree being written says about its runs and episodes, read cheaply.

No UI here: the dashboard (``screens/watch.py``) draws what these modules keep.
"""
