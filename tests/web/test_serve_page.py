"""What ``--serve`` shows around the app and prints: the page's icon and title, and a quiet server.

A real server process (what it prints is the point); no browser: the icon and the page are HTTP.
"""

from __future__ import annotations

import urllib.request

import pytest
from .served import Served, web_extra

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def web():
    web_extra()


def fetch(url: str) -> tuple[int, str, bytes]:
    with urllib.request.urlopen(url, timeout=10) as response:
        return response.status, response.headers.get_content_type(), response.read()


def test_the_page_names_the_worlds_title_and_an_icon_that_is_served(web, tmp_path):
    with Served(["play", "tutorial", "--records", "rec"], tmp_path, spares=0) as server:   # no visitor comes
        status, kind, page = fetch(server.url)
        assert status == 200 and b"<title>Posting a Letter</title>" in page   # the world's title, not "tutorial"
        assert b'<link rel="icon" href="favicon.svg" type="image/svg+xml">' in page
        for path in ("favicon.svg", "favicon.ico"):   # /favicon.ico: where a browser looks when a page names none
            status, kind, icon = fetch(server.url + path)
            assert (status, kind) == (200, "image/svg+xml") and icon.startswith(b"<svg") and b"<path" in icon


@pytest.mark.parametrize("verbose", [False, True])
def test_a_served_start_prints_where_it_serves_and_requests_only_when_verbose(web, tmp_path, verbose):
    with Served(["play", "tutorial", "--records", "rec"], tmp_path, *(["--verbose"] if verbose else []),
                spares=0) as server:
        assert fetch(server.url)[0] == 200 and fetch(server.url + "favicon.svg")[0] == 200
    lines = server.log.read_text().splitlines()
    requests = [line for line in lines if '"GET /' in line]
    if verbose:
        assert any('"GET / HTTP/1.1" 200' in line for line in requests)
        assert any('"GET /favicon.svg HTTP/1.1" 200' in line for line in requests)
    else:
        assert lines == [f"adventure play --serve: Posting a Letter on {server.url}, at most 8 sessions, idle timeout"
                         " 600 s (Ctrl+C stops)", "adventure play --serve: stopped"]
