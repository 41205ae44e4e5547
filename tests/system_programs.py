"""Programs the tests drive that pip cannot install: Debian's ``chromium`` and ``tmux``.

The README's test command is meant to set a fresh machine up by itself, as the optional heavy extras
(Fast Downward, Ray, openenv-core) are installed by the tests that need them. So a missing program is
installed here with apt-get, as ``.ci/run`` does, when the tests run as root on a machine that has
apt-get; anywhere else the test fails, saying what to install. It is never skipped.
"""

from __future__ import annotations

import os
import shutil
import subprocess

import pytest

_TRIED: dict[str, str | None] = {}   # package -> why apt-get could not install it (None: it did); once a run


def _apt_get(package: str) -> str | None:
    if os.name != "posix" or os.geteuid() != 0:
        return "not root, so the tests do not install it"
    if shutil.which("apt-get") is None:
        return "no apt-get here"
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    for step in (["apt-get", "update", "-qq"], ["apt-get", "install", "-y", "-qq", package]):
        try:
            done = subprocess.run(step, capture_output=True, text=True, env=env, timeout=900)
        except (OSError, subprocess.TimeoutExpired) as exc:
            return f"{' '.join(step)}: {exc}"
        if done.returncode != 0:
            return f"{' '.join(step)} failed: {(done.stderr or done.stdout).strip()[-300:]}"
    return None


def program(package: str, *names: str) -> str:
    """The path of the first of ``names`` (default: the package's name) on PATH, installing ``package``
    once when none is there and this machine allows it; the test fails otherwise."""
    names = names or (package,)

    def found() -> str | None:
        return next((p for p in map(shutil.which, names) if p), None)

    path = found()
    if path is None:
        if package not in _TRIED:
            _TRIED[package] = _apt_get(package)
        path = found()
    if path is None:
        pytest.fail(f"{names[0]} is needed for this test and is not on PATH ({_TRIED.get(package)}):"
                    f" apt-get install {package}")
    return path
