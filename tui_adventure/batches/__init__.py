"""Episodes without a screen: ``adventure run`` and its drivers, and the other headless commands.

``run`` is the batch (one process, ``--procs`` workers in ``processes``, Ray tasks in
``on_ray``, a machine's share in ``shards``); each driver plays through ``episodes``, the
app's own loop and recorder. ``headless`` holds ``check``, ``solve`` and ``script``.
"""
