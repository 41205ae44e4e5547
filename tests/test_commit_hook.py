"""The commit-msg hook CONTRIBUTING.md asks for: subjects of at most 72 characters."""

from __future__ import annotations

import subprocess

from conftest import ROOT

HOOK = ROOT / ".githooks" / "commit-msg"


def _hook(tmp_path, message: str) -> subprocess.CompletedProcess:
    path = tmp_path / "COMMIT_EDITMSG"
    path.write_text(message, encoding="utf-8")
    return subprocess.run([str(HOOK), str(path)], capture_output=True, text=True, timeout=30)


def test_a_subject_over_72_characters_is_refused_with_its_length(tmp_path):
    refused = _hook(tmp_path, "engine: " + "x" * 70 + "\n\nthe body may run as long as it needs\n")
    assert refused.returncode == 1 and "78 characters, over 72" in refused.stderr


def test_a_subject_of_72_characters_a_long_body_and_merges_pass(tmp_path):
    assert _hook(tmp_path, "# a comment git strips\n" + "é" * 72 + "\n\n" + "y" * 300 + "\n").returncode == 0
    assert _hook(tmp_path, "Merge branch 'x' " + "z" * 80 + "\n").returncode == 0
