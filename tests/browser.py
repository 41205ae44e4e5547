"""A real headless Chromium for tests of what a browser shows (Debian's ``chromium``, driven by playwright).

``playwright install`` is never run: the browser is the system's (CI installs it with apt-get when missing).
"""

from __future__ import annotations

import shutil
from contextlib import contextmanager

import pytest


@contextmanager
def browser_page(width: int = 1000, height: int = 800):
    """A fresh page in a headless Chromium at ``width`` x ``height``; closed afterwards."""
    chromium = shutil.which("chromium")
    if chromium is None:
        pytest.skip("no chromium on PATH (CI installs Debian's chromium; apt-get install chromium)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium, args=["--no-sandbox"])
        try:
            yield browser.new_page(viewport={"width": width, "height": height})
        finally:
            browser.close()
