"""The linters in pyproject.toml pass: ruff over the package, tests and benchmarks, deptry (every
import the package makes is declared by the extra that brings it), and mypy over the files
[tool.mypy] names (every package but screens/ and catalog.py)."""

from __future__ import annotations

import subprocess
import sys

from conftest import ROOT
from needs import module


def _run(tool: str, *args: str) -> subprocess.CompletedProcess:
    module(tool, "test")
    return subprocess.run([sys.executable, "-m", tool, *args], cwd=ROOT, capture_output=True, text=True, timeout=240)


def test_ruff_finds_nothing():
    done = _run("ruff", "check", "--no-cache", "tui_adventure", "tests", "benchmarks")
    assert done.returncode == 0, done.stdout[-4000:]


def test_every_import_is_declared():
    done = _run("deptry", ".")
    assert done.returncode == 0, (done.stdout + done.stderr)[-4000:]


def test_mypy_finds_nothing_in_the_packages_it_covers(pytestconfig, tmp_path):
    # files and settings: [tool.mypy] in pyproject.toml; its incremental cache under pytest's (a second run
    # rechecks only what changed: 1 s against 5 s), never in the working tree; under the test's own folder
    # where pytest's cache is off (-p no:cacheprovider)
    cache = pytestconfig.cache.mkdir("mypy") if hasattr(pytestconfig, "cache") else tmp_path / "mypy"
    done = _run("mypy", "--cache-dir", str(cache))
    assert done.returncode == 0, (done.stdout + done.stderr)[-4000:]
