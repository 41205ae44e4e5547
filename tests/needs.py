"""What the tests need from outside the repository, checked, never installed.

``bash .ci/setup.sh`` installs everything the suite uses (the extras, clemcore's light route, Debian's
``chromium`` and ``tmux``). A test that finds something missing fails, naming that command; it is
never skipped and never installs anything into the environment it runs in.
"""

from __future__ import annotations

import importlib.util
import shutil

import pytest

SETUP = "bash .ci/setup.sh"


def program(package: str, *names: str) -> str:
    """The path of the first of ``names`` (default: the package's name) on PATH; the test fails,
    naming the set-up command and the Debian package, when none is there."""
    names = names or (package,)
    path = next((p for p in map(shutil.which, names) if p), None)
    if path is None:
        pytest.fail(f"{names[0]} is not on PATH: run {SETUP} as root (it runs apt-get install {package})",
                    pytrace=False)
    return path


def module(name: str, extra: str):
    """The spec of top-level module ``name`` (found, not imported); the test fails, naming the set-up
    command and the extra, when it is not installed."""
    spec = importlib.util.find_spec(name)
    if spec is None:
        pytest.fail(f"{name} is not installed (the [{extra}] extra): run {SETUP} in this venv", pytrace=False)
    return spec


def uv() -> str:
    """The path of uv's binary (the [test] extra's ``uv``, which builds the suite's throwaway venvs);
    the test fails, naming the set-up command, when it is not installed."""
    module("uv", "test")
    from uv import find_uv_bin

    return find_uv_bin()
