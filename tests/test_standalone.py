"""A clone stands alone: the benchmark ships inside the package, names work without paths,
and everything printed to a terminal shows control characters instead of obeying them."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT, adventure
from needs import uv

BASIC_EASY = "clembench/home_deliver_three_basic_easy"



def test_version_and_list_name_what_ships():
    from tui_adventure import __version__

    out = adventure("--version")
    assert out.returncode == 0 and out.stdout.strip() == f"adventure {__version__}"
    listing = adventure("list").stdout
    for native in ("house", "manor", "tutorial"):
        assert f"\n  {native} " in listing
    assert listing.count("16 instances") == 8 and "128 instances" in listing
    assert BASIC_EASY in listing


def test_packaged_names_work_from_any_folder(tmp_path):
    solved = json.loads(adventure("solve", f"{BASIC_EASY}/0", "--json", cwd=tmp_path).stdout)
    assert solved["par"] == 8 and solved["optimal"]
    assert json.loads(adventure("solve", "house", "--json", cwd=tmp_path).stdout)["par"] == 21
    script = adventure("script", f"{BASIC_EASY}/instance_00000", stdin="take pillow\n", cwd=tmp_path)
    assert script.returncode == 0 and "pillow" in script.stdout


def test_unknown_names_say_what_exists(tmp_path):
    out = adventure("check", "hause", f"{BASIC_EASY}/99", "clembench/home_deliver_three_basic_eazy/1", cwd=tmp_path)
    assert out.returncode == 1
    lines = out.stdout.splitlines()
    assert lines[0].startswith("hause: ") and "did you mean 'house'" in lines[0] and "adventure list" in lines[0]
    assert "has no instance 99" in lines[1] and "0-15" in lines[1]
    assert "did you mean 'home_deliver_three_basic_easy'" in lines[2]


@pytest.mark.slow
def test_run_score_eval_on_one_packaged_experiment(tmp_path):
    records = tmp_path / "records"
    out = adventure("run", BASIC_EASY, "--player", "oracle", "--records", str(records), "--jobs", "2", cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert "played 16" in out.stdout and "succeeded 16" in out.stdout
    pointers = sorted(records.rglob("tui_adventure.json"))
    assert len(pointers) == 16
    assert json.loads(pointers[0].read_text()) == {"world": f"{BASIC_EASY}/0"}
    assert adventure("score", str(records)).returncode == 0
    scores = json.loads(next(records.rglob("instance_00000/scores.json")).read_text())
    assert scores["episode scores"]["Main Score"] == 100
    assert scores["episode scores"]["progress_rate"] == 1   # the scorer found the packaged world
    assert adventure("eval", str(records)).returncode == 0
    assert (records / "results.csv").is_file()
    replayed = adventure("replay", str(pointers[0].parent), "--help")
    assert replayed.returncode == 0


@pytest.mark.slow
def test_import_without_a_path_uses_the_packaged_instances(tmp_path):
    out = adventure("import", "clembench", "--out", str(tmp_path / "w"))
    assert out.returncode == 0, out.stderr
    assert "wrote 128 world files" in out.stdout
    assert len(list((tmp_path / "w").rglob("*.yaml"))) == 128


def test_a_headless_run_refuses_the_human_player(tmp_path):
    out = adventure("run", "house", "--player", "human", "--records", str(tmp_path / "r"))
    assert out.returncode == 2 and "adventure play" in out.stderr
    assert not (tmp_path / "r").exists()


def test_repl_and_script_show_control_characters_instead_of_obeying_them(tmp_path):
    env = {**os.environ, "TUI_ADVENTURE_HOME": str(tmp_path / "home")}
    out = adventure("repl", "tutorial", "--records", str(tmp_path / "r"), stdin="\x1b[A\nlook\x1b]52;c;eHl6\x07\n",
                    cwd=tmp_path, env=env)
    assert "\x1b" not in out.stdout and "\x07" not in out.stdout
    assert "> ^[[A" in out.stdout and "^[]52;c;eHl6^G" in out.stdout
    script = adventure("script", "tutorial", stdin="take \x9b\ud800x\n".encode("utf-8", "surrogatepass")
                       .decode("utf-8", "replace"))
    assert script.returncode == 0 and "\x9b" not in script.stdout and "<U+009B>" in script.stdout


@pytest.mark.slow
def test_a_plain_install_carries_its_data(tmp_path):
    """A plain install of the clone (not editable): rulesets, worlds and the clembench data come with it.
    uv installs it (the same setuptools build pip runs, from a cached build environment; compiled, as pip
    does); the clone's wheel is built afresh each time (``--refresh-package``), never taken from uv's cache."""
    target = tmp_path / "site"
    made = subprocess.run([uv(), "pip", "install", "-q", "--no-deps", "--compile-bytecode", "--refresh-package",
                           "tui-adventure", "--python", sys.executable, "--target", str(target), str(ROOT)],
                          capture_output=True, text=True, timeout=300)
    assert made.returncode == 0, made.stderr
    assert not (target / "tui_adventure" / "__init__.py").is_symlink()
    env = {**os.environ, "PYTHONPATH": str(target)}
    where = subprocess.run([sys.executable, "-c", "import tui_adventure; print(tui_adventure.__file__)"],
                           capture_output=True, text=True, env=env, cwd=tmp_path)
    assert Path(where.stdout.strip()).is_relative_to(target)
    listing = adventure("list", cwd=tmp_path, env=env, subprocess=True)
    assert listing.returncode == 0 and "128 instances" in listing.stdout
    solved = adventure("solve", f"{BASIC_EASY}/3", "--json", cwd=tmp_path, env=env, subprocess=True)
    assert solved.returncode == 0 and json.loads(solved.stdout)["optimal"]
    assert adventure("check", "manor", cwd=tmp_path, env=env, subprocess=True).returncode == 0
