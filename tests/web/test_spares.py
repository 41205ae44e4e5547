"""Visitors' app processes (``web/processes.py``): each in a process group of its own, started in a way
every Python we promise has (``requires-python`` is 3.10; the suite runs on a later one)."""

from __future__ import annotations

import asyncio
import os
import sys

from .served import web_extra

NEW_AFTER_3_10 = {"process_group"}   # keywords of subprocess.Popen that Python 3.10 lacks (3.11's)


async def test_a_visitor_process_has_its_own_process_group_started_as_python_3_10_can(monkeypatch):
    web_extra()
    from tui_adventure.web.processes import Spares, end_process

    real = asyncio.create_subprocess_exec

    async def as_python_3_10(*argv, **options):
        unknown = sorted(NEW_AFTER_3_10 & set(options))
        if unknown:   # what 3.10's Popen says of it: every visitor's process failed to start there
            raise TypeError(f"Popen.__init__() got an unexpected keyword argument {unknown[0]!r}")
        return await real(*argv, **options)

    monkeypatch.setattr(asyncio, "create_subprocess_exec", as_python_3_10)
    spares = Spares([sys.executable, "-c", "import sys; sys.stdin.read()"], count=0)
    process = await spares.take()
    try:
        assert os.getpgid(process.pid) == process.pid   # its own group: end_group ends it and what it started
    finally:
        await end_process(process, grace=0)
    assert process.returncode is not None
