"""What a served visitor's process does to itself before it loads anything (``--await-visitor``).

A visitor is a stranger: their process may not take the machine, and may not outlive the server that
started it. ``bound`` sets the process's limits (address space, CPU seconds) and asks the kernel to kill
it when the server dies, however the server dies (``kill -9`` included): Linux's parent-death signal,
``prctl(PR_SET_PDEATHSIG)``. The server also starts each visitor in its own process group and ends the
group with the session (``web.server``).
"""

from __future__ import annotations

import ctypes
import os
import resource
import signal
import sys

MEMORY_BYTES = 1536 * 2**20   # address space: the app with a 200-world study takes a few hundred MB
CPU_SECONDS = 3600            # a visit is mostly waiting for keys: an hour of CPU is far beyond any sitting
PR_SET_PDEATHSIG = 1          # <linux/prctl.h>


def bound(memory: int = MEMORY_BYTES, cpu: int = CPU_SECONDS) -> None:
    """Limit this process, and make it die with its server (the parent whose pid ``ADVENTURE_SERVER_PID``
    names): exits at once if that parent is already gone. A process no server started (no such pid: a test
    calling the front end in its own process) is left as it is: the limits could never be raised again."""
    server = os.environ.get("ADVENTURE_SERVER_PID", "")
    if not server.isdigit():
        return
    for limit, value in ((resource.RLIMIT_AS, memory), (resource.RLIMIT_CPU, cpu)):
        _, hard = resource.getrlimit(limit)
        resource.setrlimit(limit, (value, value) if hard == resource.RLIM_INFINITY or hard > value else (hard, hard))
    if sys.platform.startswith("linux"):
        libc = ctypes.CDLL(None, use_errno=True)
        if libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) != 0:
            raise OSError(ctypes.get_errno(), "prctl(PR_SET_PDEATHSIG) failed")
    if os.getppid() != int(server):
        os._exit(1)   # the server died before the parent-death signal was asked for
