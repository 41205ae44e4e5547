"""The engine must stay importable without any UI library loaded."""

import subprocess
import sys

UI_MODULES = ("textual", "rich", "prompt_toolkit")


def test_engine_imports_no_ui_library():
    code = (
        "import sys, pkgutil, importlib, tui_adventure.engine as e\n"
        "for m in pkgutil.walk_packages(e.__path__, 'tui_adventure.engine.'):\n"
        "    importlib.import_module(m.name)\n"
        f"bad = [m for m in sys.modules if m.split('.')[0] in {UI_MODULES!r}]\n"
        "print(','.join(bad))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "", f"engine pulled in UI modules: {out.stdout}"
