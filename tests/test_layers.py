"""The layers import only downwards, and no UI library reaches below the front ends.

The contracts live in pyproject.toml ([tool.importlinter]); this runs
import-linter's own checker on them, so a wrong import fails the suite.
"""

import shutil
import subprocess
import sys
from pathlib import Path

from conftest import ROOT


def test_import_contracts_hold():
    exe = shutil.which("lint-imports", path=str(Path(sys.executable).parent)) or "lint-imports"
    out = subprocess.run([exe, "--config", str(ROOT / "pyproject.toml")], capture_output=True, text=True,
                         cwd=ROOT, timeout=300)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "Contracts: 2 kept, 0 broken" in out.stdout
