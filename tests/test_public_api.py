"""The public face: ``from tui_adventure import ...`` as docs/api.md and the README show it."""

from __future__ import annotations

import re
import subprocess
import sys

import tui_adventure

from conftest import ROOT


def _python_blocks(path) -> list[str]:
    return re.findall(r"```python\n(.*?)```", path.read_text(encoding="utf-8"), flags=re.S)


def test_every_public_name_resolves_and_is_documented():
    api = (ROOT / "docs" / "api.md").read_text(encoding="utf-8")
    assert set(tui_adventure.__all__) == {"__version__", *tui_adventure._PUBLIC}
    for name in tui_adventure.__all__:
        assert getattr(tui_adventure, name) is not None
        assert name == "__version__" or f"`{name}" in api, f"docs/api.md does not describe {name}"


def test_import_stays_cheap():
    """A process (its own, so nothing else has loaded the engine) imports the package without the engine."""
    code = "import sys, tui_adventure; print(sorted(m for m in sys.modules if m.startswith('tui_adventure.engine')))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert out.stdout.strip() == "[]"


def test_unknown_name_is_an_attribute_error():
    try:
        tui_adventure.NoSuchThing  # noqa: B018
    except AttributeError as exc:
        assert "NoSuchThing" in str(exc)
    else:
        raise AssertionError("an unknown name resolved")


def test_the_documented_examples_run(capsys):
    blocks = _python_blocks(ROOT / "docs" / "api.md") + _python_blocks(ROOT / "README.md")
    assert len(blocks) >= 2
    for block in blocks:
        exec(compile(block, "<docs example>", "exec"), {})
    out = capsys.readouterr().out
    assert "par 21" in out and "held(lamp)" in out
    assert " object at 0x" not in out   # what the examples print reads as what it is (a State: its size)
