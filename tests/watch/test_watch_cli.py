"""adventure watch from the command line: roots it cannot watch are one line (never a traceback), and
--serve answers a browser's first request with the served page."""

import socket
import subprocess
import sys
import time
import urllib.request

import pytest

from conftest import ROOT, TEST_WORLDS, WORLDS, adventure


@pytest.mark.parametrize("where, said", [
    ("nowhere", "does not exist"),
    (str(WORLDS / "house.yaml"), "is not a folder"),
    ("files", "holds no clemcore records, only files (a.yaml)"),
    (str(WORLDS), "holds no clemcore records"),
    (str(TEST_WORLDS.parent), "holds no clemcore records"),
])
def test_a_root_that_cannot_be_watched_is_one_line(where, said, tmp_path):
    (tmp_path / "files").mkdir()
    (tmp_path / "files" / "a.yaml").write_text("game: a")
    done = adventure("watch", where, cwd=tmp_path)
    assert done.returncode == 1
    assert done.stderr.startswith("adventure watch: ") and said in done.stderr
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.slow
def test_serve_answers_the_page_in_a_browsers_first_request(tmp_path):
    (tmp_path / "records").mkdir()
    port = free_port()
    server = subprocess.Popen([sys.executable, "-m", "tui_adventure.cli", "watch", str(tmp_path / "records"),
                               "--serve", "--port", str(port), "--spares", "0"],   # no dashboard is opened
                              cwd=ROOT, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True)
    try:
        page, end = None, time.monotonic() + 30
        while page is None and time.monotonic() < end:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=2) as answer:
                    page = (answer.status, answer.read().decode())
            except OSError:
                assert server.poll() is None, server.stdout.read()
                time.sleep(0.2)
        assert page is not None and page[0] == 200
        assert "textual.js" in page[1] and 'new URL("ws/' in page[1]   # the app's websocket, by its ticket
        assert "adventure watch" in page[1]                                               # its title
    finally:
        server.terminate()
        server.wait(10)


def test_serve_on_a_port_in_use_is_one_line(tmp_path):
    (tmp_path / "records").mkdir()
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        done = adventure("watch", str(tmp_path / "records"), "--serve", "--port", str(port), cwd=tmp_path)
    assert done.returncode == 2 and "cannot listen on 127.0.0.1" in done.stderr and "Traceback" not in done.stderr
