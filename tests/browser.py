"""A real headless browser for what tui-adventure serves: Debian's ``chromium`` driven by playwright.

playwright's own browser download is never used (``playwright install`` is not run anywhere): the
browser is the system's (``.ci/setup.sh`` installs it); ``needs.program`` fails when it is missing.
"""

from __future__ import annotations

from contextlib import contextmanager

from needs import program


def chromium(playwright):
    """A headless Chromium from ``playwright`` (``sync_playwright()`` or ``async_playwright()``'s object);
    the test fails, saying how to get the browser, when the system has none."""
    path = program("chromium", "chromium", "chromium-browser")
    return playwright.chromium.launch(executable_path=path, args=["--no-sandbox"])


@contextmanager
def browser_page(width: int = 1000, height: int = 800):
    """A fresh page in a headless Chromium at ``width`` x ``height``; closed afterwards."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = chromium(p)
        try:
            yield browser.new_page(viewport={"width": width, "height": height})
        finally:
            browser.close()
