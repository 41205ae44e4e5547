"""Agent interfaces: the Gymnasium environment (``env.py``, the ``[gym]`` extra) and its ids."""
