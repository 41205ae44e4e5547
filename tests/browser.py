"""A real headless browser for what tui-adventure serves: Debian's ``chromium`` driven by playwright.

playwright's own browser download is never used (``playwright install`` is not run anywhere): the
browser is the system's, which ``.ci/run`` installs with apt-get when it is missing.
"""

from __future__ import annotations

import shutil

import pytest


def chromium(playwright):
    """A headless Chromium from ``playwright`` (``sync_playwright()`` or ``async_playwright()``'s object);
    the test fails, saying how to get the browser, when the system has none."""
    path = shutil.which("chromium") or shutil.which("chromium-browser")
    if path is None:
        pytest.fail("no chromium on PATH: apt-get install chromium (.ci/run does it when missing)")
    return playwright.chromium.launch(executable_path=path, args=["--no-sandbox"])
