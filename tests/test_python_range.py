"""Both ends of the Pythons we promise run the package, beside clemcore 3.7.2.

The oldest is pyproject.toml's ``requires-python``; the newest is the newest
clemcore 3.7.2 admits (its ``Requires-Python``, read from the installed
package: the README promises the tests on 3.10-3.12).

The suite itself runs on one Python (CI's 3.11), so a feature of a newer one
slips in unseen: a possessive regex (3.11) made every import of the engine
fail on 3.10, and ``asyncio.Runner`` (3.11) every ``adventure repl``, while
``requires-python`` said ">=3.10" (Ubuntu 22.04's Python, which clemcore 3.7.2
supports too). Here a venv of that Python gets clemcore 3.7.2 and this project
by one uv install (in seconds where pip takes minutes), imports every module and
plays a world headless and at the repl. The newest end catches the other way
round: something a later Python removed or changed (3.12 dropped distutils and
changed how some warnings and regexes behave) that the suite's own Python does
not see. Each venv is kept under pytest's cache, keyed by pyproject.toml, with
the bytecode its first processes write. A Python is not a pip package: a machine
without that version skips, saying so.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import ROOT, adventure
from model_env import MODEL_ENV
from needs import uv

# clemcore_full: as that file's venv, each end's is one uv install of the whole clemcore 3.7.2 and this
# project; a fresh one takes a minute. One worker builds each end's venv and runs what uses it (an
# xdist_group per end, so the two ends may build on both workers at once)
pytestmark = [pytest.mark.slow, pytest.mark.clemcore_full, pytest.mark.timeout(2400)]

# dropped from the environment of the venv's processes: its own venv, and PYTHONDONTWRITEBYTECODE (the venv
# keeps the bytecode its first processes write; compiling all of it at install costs more)
BYTECODE_AND_VENV = ("VIRTUAL_ENV", "PYTHONPATH", "PYTHONDONTWRITEBYTECODE")
OLDEST = tuple(int(x) for x in re.search(r'requires-python = ">=(\d+)\.(\d+)"',
                                         (ROOT / "pyproject.toml").read_text()).groups())


def _newest() -> tuple[int, int] | None:
    """The minor version below clemcore's ``<3.N`` bound; None where clemcore is not installed here."""
    try:
        spec = importlib.metadata.metadata("clemcore")["Requires-Python"] or ""
    except importlib.metadata.PackageNotFoundError:
        return None
    bound = re.search(r"<\s*(\d+)\.(\d+)", spec)
    return (int(bound[1]), int(bound[2]) - 1) if bound else None


NEWEST = _newest()
ENDS = [pytest.param(OLDEST, id="oldest", marks=pytest.mark.xdist_group("python_oldest")),
        pytest.param(NEWEST, id="newest", marks=[pytest.mark.xdist_group("python_newest"), pytest.mark.skipif(
            NEWEST is None or NEWEST == OLDEST, reason="clemcore 3.7.2 is not installed here: no newest end")])]
# what an import may miss in a venv of the core dependencies: the extras' own packages
EXTRAS = {"gymnasium", "pettingzoo", "openenv", "ray", "textual_serve", "anthropic", "up_fast_downward",
          "numpy", "fastapi", "uvicorn", "pydantic"}
IMPORT_ALL = f"""
import importlib, pkgutil, tui_adventure
extras = {sorted(EXTRAS)!r}
missing = set()
for m in pkgutil.walk_packages(tui_adventure.__path__, "tui_adventure."):
    if m.name.endswith("__main__"):   # it runs the CLI
        continue
    try:
        importlib.import_module(m.name)
    except ModuleNotFoundError as e:
        if (e.name or "").split(".")[0] not in extras:
            raise
        missing.add(e.name.split(".")[0])
print("imported; extras not installed:", sorted(missing))
"""


def _interpreter(version: tuple[int, int]) -> str | None:
    name = f"python{version[0]}.{version[1]}"
    found = shutil.which(name)
    if found and subprocess.run([found, "-c", "pass"], capture_output=True).returncode == 0:   # a pyenv shim may say no
        return found
    for home in sorted(Path.home().glob(f".pyenv/versions/{version[0]}.{version[1]}.*")):
        if (home / "bin" / name).is_file():
            return str(home / "bin" / name)
    return None


@pytest.fixture(scope="module", params=ENDS)
def end_venv(request, pytestconfig) -> Path:
    """A venv of one end's Python with clemcore 3.7.2 and this project."""
    end = request.param
    python = _interpreter(end)
    if python is None:
        pytest.skip(f"no python{end[0]}.{end[1]} on this machine (an end of the Pythons we promise;"
                    f" a Python is not a pip package)")
    version = subprocess.run([python, "--version"], capture_output=True, text=True).stdout.strip()
    key = hashlib.sha256((ROOT / "pyproject.toml").read_bytes() + f"{version}|{ROOT}".encode()).hexdigest()[:16]
    base = pytestconfig.cache.mkdir(f"python-{end[0]}.{end[1]}")
    venv = base / key
    if not (venv / "ready").is_file():
        for old in base.iterdir():
            shutil.rmtree(old, ignore_errors=True)
        binary = uv()
        subprocess.run([binary, "venv", "-q", "--seed", "-p", python, str(venv)], check=True, timeout=300)
        made = subprocess.run([binary, "pip", "install", "-q", "--python", str(venv / "bin" / "python"),
                               "clemcore==3.7.2", "-e", str(ROOT)], capture_output=True, text=True, timeout=1800)
        assert made.returncode == 0, f"{version}: clemcore and this project do not install together:\n{made.stderr[-3000:]}"
        (venv / "ready").write_text(version + "\n")
    return venv


def _in(venv: Path, *cmd: str, cwd: Path, stdin: str = "") -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in MODEL_ENV and k not in BYTECODE_AND_VENV}
    env.update(PATH=f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}", HOME=str(cwd))
    return subprocess.run([str(venv / "bin" / cmd[0]), *cmd[1:]], input=stdin, capture_output=True, text=True,
                          cwd=cwd, env=env, timeout=600)


def test_every_module_imports_at_each_end(end_venv, tmp_path):
    out = _in(end_venv, "python", "-c", IMPORT_ALL, cwd=tmp_path)
    assert out.returncode == 0, out.stderr[-3000:]
    assert "imported" in out.stdout


def test_each_end_plays_a_world_at_the_repl_and_headless(end_venv, tmp_path):
    repl = _in(end_venv, "adventure", "repl", "house", cwd=tmp_path, stdin="look\ngo up\ninventory\n")
    assert repl.returncode == 0, repl.stderr[-3000:]
    assert "Traceback" not in repl.stderr
    assert "> go up" in repl.stdout and "Landing" in repl.stdout
    run = _in(end_venv, "adventure", "run", "house", "--player", "oracle", "--records", str(tmp_path / "rec"),
              cwd=tmp_path)
    assert run.returncode == 0, run.stderr[-3000:]
    assert "succeeded 1, errors 0" in run.stdout
    assert list((tmp_path / "rec").rglob("interactions.json")), run.stdout


@pytest.mark.parametrize("knobs", [["--rooms", "6", "--objects", "10"], ["--flavour", "clembench", "--goals", "2"]])
def test_generated_worlds_are_byte_identical_at_each_end(end_venv, tmp_path, knobs):
    """docs/generate.md promises the same files on any machine and Python 3.10+."""
    args = ["generate", "--count", "3", "--seed", "7", *knobs]
    old = _in(end_venv, "adventure", *args, "--out", str(tmp_path / "old"), cwd=tmp_path)
    assert old.returncode == 0, old.stderr[-3000:]
    here = adventure(*args, "--out", str(tmp_path / "here"), cwd=tmp_path)
    assert here.returncode == 0, here.stderr[-3000:]
    files = sorted(p.relative_to(tmp_path / "here") for p in (tmp_path / "here").rglob("*") if p.is_file())
    assert files
    assert files == sorted(p.relative_to(tmp_path / "old") for p in (tmp_path / "old").rglob("*") if p.is_file())
    for f in files:
        assert (tmp_path / "old" / f).read_bytes() == (tmp_path / "here" / f).read_bytes(), f
