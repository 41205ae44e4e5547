"""Folders and files a user may not write or read: one clear line, never a traceback (issue 35).

Root may write anywhere, so on a machine (or CI) that runs the tests as root a read-only folder
proves nothing: there every command runs as ``nobody`` (``setpriv``), over files that root owns.
As any other user the commands run as that user. Where neither is possible the tests are skipped,
with the reason.
"""

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from conftest import DATA, ROOT

NOBODY = 65534
SETPRIV = shutil.which("setpriv")


def _as_nobody_works() -> bool:
    try:
        done = subprocess.run([SETPRIV, f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups", sys.executable,
                               "-c", "import tui_adventure.cli"], capture_output=True, timeout=60,
                              env={**os.environ, "PYTHONPATH": str(ROOT)})
    except OSError:
        return False
    return done.returncode == 0


if os.geteuid() != 0:
    PREFIX: list[str] = []
elif SETPRIV and _as_nobody_works():
    PREFIX = [SETPRIV, f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups"]
else:
    pytest.skip("running as root without setpriv, or nobody cannot run this checkout: a read-only folder would"
                " prove nothing", allow_module_level=True)


@pytest.fixture(scope="module")
def place():
    """A folder everyone can read, outside pytest's own (root's are 0700); removed after."""
    base = Path(tempfile.mkdtemp(prefix="perm-", dir="/tmp"))
    base.chmod(0o755)
    good = base / "good"
    out = subprocess.run([sys.executable, "-m", "tui_adventure.cli", "run", "tutorial", "house", "--player", "oracle",
                          "--records", str(good)], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    home = base / "home"
    home.mkdir()
    if PREFIX:
        os.chown(home, NOBODY, NOBODY)
    yield base
    shutil.rmtree(base, ignore_errors=True)


def read_only(place: Path, name: str) -> Path:
    """A copy of the good records that the user running the commands can read and not write."""
    target = place / name
    shutil.copytree(place / "good", target)
    for p in [target, *target.rglob("*")]:
        p.chmod(0o555 if p.is_dir() else 0o444)
    return target


def writable(place: Path, name: str) -> Path:
    target = place / name
    target.mkdir()
    if PREFIX:
        os.chown(target, NOBODY, NOBODY)
    return target


def adventure(place: Path, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "TUI_ADVENTURE_HOME": str(place / "home"), "HOME": str(place / "home")}
    return subprocess.run([*PREFIX, sys.executable, "-m", "tui_adventure.cli", *args], capture_output=True,
                          text=True, timeout=300, cwd=place, env=env)


def one_line(out: subprocess.CompletedProcess, *words: str) -> None:
    text = out.stdout + out.stderr
    assert "Traceback" not in text, text
    assert out.returncode != 0, text
    assert any(w in text for w in words), text


@pytest.mark.slow
def test_a_read_only_records_folder_stops_run_with_a_message(place):
    frozen = read_only(place, "run-ro")
    one_line(adventure(place, "run", "manor", "--player", "oracle", "--records", str(frozen)),
             "Permission denied", "cannot write", "not writable")


@pytest.mark.slow
def test_score_and_eval_on_a_read_only_tree_say_what_they_could_not_write(place):
    frozen = read_only(place, "score-ro")
    one_line(adventure(place, "score", str(frozen)), "Permission denied", "cannot write")
    one_line(adventure(place, "eval", str(frozen)), "Permission denied", "cannot write")


@pytest.mark.slow
def test_an_unreadable_record_is_one_bad_episode(place):
    tree = place / "unreadable"
    shutil.copytree(place / "good", tree)
    for p in [tree, *tree.rglob("*")]:
        if PREFIX:
            os.chown(p, NOBODY, NOBODY)
    hidden = next(tree.rglob("tutorial/instance_00000/interactions.json"))
    hidden.chmod(0)
    score = adventure(place, "score", str(tree))
    assert "Traceback" not in score.stderr and "Permission denied" in score.stderr
    assert len(list(tree.rglob("scores.json"))) == 1   # the other episode is scored
    ev = adventure(place, "eval", str(tree))
    assert ev.returncode == 0 and "Traceback" not in ev.stderr and (tree / "results.csv").is_file()
    export = adventure(place, "export", "trajectories", str(tree), "--out", str(tree / "t.jsonl"))
    assert export.returncode == 0 and "from 1 episode exported (1 unreadable left out)" in export.stderr


@pytest.mark.slow
@pytest.mark.parametrize("command", [
    ["generate", "--out", "{ro}/gen", "--rooms", "3", "--objects", "5", "--goals", "1"],
    ["import", "clembench", "--out", "{ro}/imp"],
    ["import", "labyrinth", str(DATA / "labyrinth" / "bridge_scene.json"), "--out", "{ro}/scene.yaml"],
    ["import", "textworld", str(DATA / "textworld" / "tw_small.json"), "--out", "{ro}/tw.yaml"],
    ["export", "trajectories", "{good}", "--out", "{ro}/t.jsonl"],
    ["export", "pddl", "house", "--out", "{ro}/pddl"],
])
def test_writing_into_a_read_only_folder_is_one_line(place, command):
    frozen = place / "ro"
    frozen.mkdir(exist_ok=True)
    frozen.chmod(0o555)
    args = [a.format(ro=frozen, good=place / "good") for a in command]
    one_line(adventure(place, *args), "Permission denied", "cannot write", "cannot create")
    assert not any(frozen.iterdir())


def test_commands_still_work_where_they_may_write(place):
    out = writable(place, "w")
    done = adventure(place, "generate", "--out", str(out / "gen"), "--rooms", "3", "--objects", "5", "--goals", "1")
    assert done.returncode == 0, done.stderr
