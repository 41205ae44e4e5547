"""The in-process CLI runner the tests use (conftest.adventure): what a subprocess would give, and
nothing of the call left behind in this process."""

import os
import sys

from conftest import TEST_WORLDS, adventure


def test_in_process_gives_what_a_process_gives(tmp_path):
    args = ("script", str(TEST_WORLDS / "mini.yaml"))
    inside = adventure(*args, stdin="take book\nxyzzy\n", cwd=tmp_path)
    outside = adventure(*args, stdin="take book\nxyzzy\n", cwd=tmp_path, subprocess=True)
    assert (inside.returncode, inside.stdout, inside.stderr) == (outside.returncode, outside.stdout, outside.stderr)
    assert "You take the book." in inside.stdout
    bad = adventure("solve")                        # argparse's exit: code 2 and its usage line on stderr
    assert bad.returncode == 2 and bad.stderr.startswith("usage: adventure solve") and bad.stdout == ""
    raw = adventure("script", str(TEST_WORLDS / "mini.yaml"), stdin=b"look\n")
    assert raw.returncode == 0 and isinstance(raw.stdout, bytes) and b"Hall" in raw.stdout


def test_in_process_leaves_the_folder_environment_and_streams_as_they_were(tmp_path):
    before = os.getcwd(), dict(os.environ), (sys.stdin, sys.stdout, sys.stderr)
    done = adventure("check", "mini.yaml", cwd=TEST_WORLDS, env={"TUI_ADVENTURE_PROBE": "1"})
    assert done.returncode == 0, done.stderr
    assert (os.getcwd(), dict(os.environ), (sys.stdin, sys.stdout, sys.stderr)) == before
