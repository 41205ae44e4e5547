"""The story files written here (stories/): each plays its walkthrough to the end it promises under
raw Jericho, stories/build.sh rebuilds each byte for byte, and every bad story file gets one line
from tui_adventure.zmachine.story before Jericho (whose Frotz ends the process on it) sees it.
Jericho (the [zmachine] extra) and inform6 come from .ci/setup.sh; without them these fail."""

from __future__ import annotations

import os
import socket
import struct
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

from conftest import ROOT
from needs import SETUP, module, program
from tui_adventure.engine.yamlpos import SourceErrors
from tui_adventure.zmachine import story as zstory

STORIES = ROOT / "stories"
WON, DIED = "*** You have won ***", "*** You have died ***"

# file, walkthrough, the end it reaches, score, max score
ENDINGS = [
    ("lighthouse.z5", "lighthouse.walkthrough", WON, 30, 30),
    ("lighthouse.z8", "lighthouse.walkthrough", WON, 30, 30),
    ("cellar.z5", "cellar.walkthrough", WON, 25, 25),
    ("cellar.z5", "cellar.lose", DIED, 15, 25),
    ("tower.z3", "tower.walkthrough", WON, 25, 25),
    ("tower.z3", "tower.lose", DIED, 10, 25),
]


@pytest.fixture(scope="module")
def jericho():
    module("jericho", "zmachine")
    import jericho

    return jericho


def commands(walkthrough: str) -> list[str]:
    return [line.strip() for line in (STORIES / walkthrough).read_text().splitlines() if line.strip()]


def open_env(jericho, path: Path):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", jericho.UnsupportedGameWarning)   # ours are not in Jericho's catalogue
        env = jericho.FrotzEnv(str(path))
    env.reset()
    return env


def play(jericho, path: Path, walkthrough: str) -> list[str]:
    """The game's answer to each command of the walkthrough."""
    env = open_env(jericho, path)
    try:
        return [env.step(command)[0] for command in commands(walkthrough)]
    finally:
        env.close()


def assert_ends(answers: list[str], end: str, score: int, most: int) -> None:
    assert end in answers[-1], answers[-1]
    assert f"scored {score} out of a possible {most}" in answers[-1]
    assert not any(WON in a or DIED in a for a in answers[:-1]), "the game ended before its walkthrough did"


@pytest.mark.parametrize("name, walkthrough, end, score, most", ENDINGS)
def test_each_game_reaches_its_end_along_its_walkthrough(jericho, name, walkthrough, end, score, most):
    assert_ends(play(jericho, STORIES / name, walkthrough), end, score, most)


def test_the_games_cover_doors_containers_and_versions(jericho):
    lighthouse = play(jericho, STORIES / "lighthouse.z5", "lighthouse.walkthrough")
    said = dict(zip(commands("lighthouse.walkthrough"), lighthouse))
    assert "revealing a brass key" in said["open chest"]                # a container opened
    assert "Removed" in said["take key from chest"]                     # taken from it
    assert "You unlock the iron door" in said["unlock door with key"]   # the locked door and its key
    assert "oil into the lamp" in said["put can in lamp"]               # put in
    assert {zstory.read_story(STORIES / f).version for f in ("tower.z3", "lighthouse.z5", "lighthouse.z8")} == {3, 5, 8}
    env = open_env(jericho, STORIES / "lighthouse.z5")
    try:
        assert "iron door" in env.step("north")[0] and "Beach" in env.step("look")[0]   # locked: still on the beach
    finally:
        env.close()


def test_undo_is_jerichos_state_not_the_interpreters(jericho):
    """Jericho's Frotz keeps no undo (the game says so), so undo is a saved state set back: after
    dying in the cellar, the state from before the wine plays on to the win."""
    env = open_env(jericho, STORIES / "cellar.z5")
    try:
        lose = commands("cellar.lose")
        for command in lose[:-1]:
            env.step(command)
        before = env.get_state()
        assert DIED in env.step(lose[-1])[0]
        env.set_state(before)
        answers = [env.step(c)[0] for c in ("west", "up", "open box", "put ring in box")]
        assert_ends(answers, WON, 25, 25)
        assert 'does not provide "undo"' in env.step("undo")[0]
    finally:
        env.close()


def test_build_script_rebuilds_each_story_file_byte_for_byte(jericho, tmp_path):
    program("inform6-compiler", "inform6")
    done = subprocess.run(["bash", str(STORIES / "build.sh"), str(tmp_path)], capture_output=True, text=True, timeout=240)
    assert done.returncode == 0, done.stderr
    committed = sorted(p.name for p in STORIES.glob("*.z?"))
    assert sorted(p.name for p in tmp_path.glob("*.z?")) == committed and len(committed) == 4
    for name in committed:
        assert (tmp_path / name).read_bytes() == (STORIES / name).read_bytes(), f"{name} rebuilt differently"
    for name, walkthrough, end, score, most in ENDINGS:
        assert_ends(play(jericho, tmp_path / name, walkthrough), end, score, most)


def test_build_script_without_inform6_names_the_set_up(tmp_path):
    bare = tmp_path / "bin"
    bare.mkdir()
    for tool in ("dirname", "mkdir"):   # what the script runs before it looks for inform6
        os.symlink(subprocess.run(["bash", "-c", f"command -v {tool}"], capture_output=True, text=True).stdout.strip(),
                   bare / tool)
    done = subprocess.run(["/bin/bash", str(STORIES / "build.sh"), str(tmp_path / "out")], capture_output=True,
                          text=True, env={"PATH": str(bare)}, timeout=60)
    assert done.returncode == 1 and SETUP in done.stderr and "inform6-compiler" in done.stderr
    assert len(done.stderr.splitlines()) == 1 and not (tmp_path / "out").exists()


def blorb(code: bytes, kind: bytes = b"ZCOD", exec_usage: bytes = b"Exec", sound: int = 0) -> bytes:
    """A Blorb holding ``code`` as its executable, indexed as ``exec_usage`` 0, after a sound chunk of
    ``sound`` bytes (odd lengths padded) when ``sound``."""
    before = 12 + 8 + 28 + (8 + sound + (sound & 1) if sound else 0)
    index = struct.pack(">I4sII4sII", 2, exec_usage, 0, before, b"Snd ", 3, 12 + 8 + 28)
    body = b"IFRS" + b"RIdx" + struct.pack(">I", len(index)) + index
    if sound:
        body += b"FORM" + struct.pack(">I", sound) + b"\1" * sound + b"\0" * (sound & 1)
    body += kind + struct.pack(">I", len(code)) + code + b"\0" * (len(code) & 1)
    return b"FORM" + struct.pack(">I", len(body)) + body


def test_a_blorb_is_unwrapped_to_the_z_code_jericho_plays(jericho, tmp_path):
    code = (STORIES / "lighthouse.z5").read_bytes()
    (tmp_path / "lighthouse.zblorb").write_bytes(blorb(code, sound=3 * 1024 * 1024 + 1))
    story = zstory.read_story(tmp_path / "lighthouse.zblorb")
    assert story.blorb and story.version == 5 and story.md5 == zstory.read_story(STORIES / "lighthouse.z5").md5
    path = zstory.playable_file(story, tmp_path / "unwrapped")
    assert path == tmp_path / "unwrapped" / "lighthouse.z5" and path.read_bytes() == code
    assert_ends(play(jericho, path, "lighthouse.walkthrough"), WON, 30, 30)
    assert zstory.playable_file(zstory.read_story(STORIES / "tower.z3"), tmp_path / "x") == STORIES / "tower.z3"


def _bad_files() -> dict[str, tuple[bytes, str]]:
    code = (STORIES / "lighthouse.z5").read_bytes()
    damaged = bytearray(code)
    damaged[5000] ^= 1
    glulx = b"Glul" + bytes(60)
    small = (STORIES / "tower.z3").read_bytes()
    return {
        "truncated.z5": (code[:30000], "truncated: the header says 87,992 bytes and the file has 30,000"),
        "empty.z5": (b"", "not a Z-machine story file (the file is 0 bytes"),
        "notes.z5": (b"hello, world\n" * 40, "not a Z-machine story file (its first byte, the version, is 104"),
        "graphical.z6": (bytes([6]) + code[1:], "a version-6 (graphical) story file"),
        "nine.z5": (bytes([9]) + code[1:], "the version, is 9, not 1-8"),
        "damaged.z5": (bytes(damaged), "damaged: its checksum"),
        "game.ulx": (glulx, "a Glulx game, not a Z-machine story file"),
        "tables.z3": (small[:0x0C] + b"\xff\xf0" + small[0x0E:], "table addresses lie outside the file"),
        "sound.blorb": (b"FORM\0\0\0\4AIFF", "an IFF FORM but not a Blorb"),
        "cut.zblorb": (blorb(code)[:5000], "truncated: the Blorb says"),
        "glulx.gblorb": (blorb(glulx, kind=b"GLUL"), "not Z-code (ZCOD): a Glulx or other game"),
        "huge.z8": (code + bytes(512 * 1024), "larger than the 512 KB the Z-machine can address"),
        "pictures.zblorb": (blorb(code, exec_usage=b"Pict"), "a Blorb without a game"),
        "v6.zblorb": (blorb(bytes([6]) + code[1:]), "a version-6 (graphical) story file"),
    }


@pytest.mark.parametrize("name", sorted(_bad_files()))
def test_each_bad_story_file_is_one_line_naming_it(tmp_path, name):
    data, said = _bad_files()[name]
    (tmp_path / name).write_bytes(data)
    with pytest.raises(SourceErrors) as caught:
        zstory.read_story(tmp_path / name)
    line = str(caught.value)
    assert line.startswith(f"{tmp_path / name}: ") and said in line and "\n" not in line


@pytest.mark.parametrize("where, said", [("missing.z5", "no such story file"), (".", "not a regular file")])
def test_a_missing_story_file_is_one_line(tmp_path, where, said):
    with pytest.raises(SourceErrors, match=f"^{tmp_path / where}: {said}$".replace(".", r"\.")):
        zstory.read_story(tmp_path / where)


@pytest.mark.parametrize("name", ["truncated.z5", "lighthouse.zblorb"])
def test_jerichos_frotz_would_end_the_process_on_what_read_story_checks_first(jericho, tmp_path, name):
    """Why the checks come first and a Blorb is unwrapped: raw Jericho on a truncated file, or on a
    Blorb, exits the interpreter's process ("Fatal error")."""
    code = (STORIES / "lighthouse.z5").read_bytes()
    (tmp_path / name).write_bytes(code[:30000] if name.endswith(".z5") else blorb(code))
    script = ("import warnings, jericho; warnings.simplefilter('ignore'); env = jericho.FrotzEnv(r'%s');"
              " env.reset(); env.step('open chest'); print('still here')" % (tmp_path / name))
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert "still here" not in done.stdout and "Fatal error" in done.stdout + done.stderr


def test_without_jericho_a_story_file_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "jericho", None)   # import jericho raises ImportError
    with pytest.raises(SourceErrors) as caught:
        zstory.require_jericho("stories/lighthouse.z5")
    line = str(caught.value)
    assert line.startswith("stories/lighthouse.z5: ") and "pip install -e '.[zmachine]'" in line and "\n" not in line


def test_story_paths_are_known_by_their_suffix():
    assert all(zstory.is_story_path(p) for p in ("a.z3", "b.Z5", "dir/c.z8", "d.zblorb", "e.blorb"))
    assert not any(zstory.is_story_path(p) for p in ("house", "worlds/tutorial.yaml", "game.ulx", "z5"))


class CataloguedEnv:
    """What Jericho's get_valid_actions does first on a catalogued game: name the objects in a text with
    spaCy (jericho.util.extract_objs), which downloads en_core_web_sm when it is missing."""

    is_fully_supported = True

    def get_valid_actions(self, **_options) -> list[str]:
        from jericho import util

        return sorted(word for word, _ in util.extract_objs("A brass key lies in the open chest."))


def test_valid_actions_never_reach_the_network_when_spacys_model_is_missing(jericho, monkeypatch):
    module("spacy", "zmachine")
    reached = []

    def refuse(*args, **_kwargs):
        reached.append(args[:2])
        raise OSError("the network is closed in this test")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "getaddrinfo", refuse)
    monkeypatch.setitem(sys.modules, zstory.SPACY_MODEL, None)   # missing, even where it is installed
    assert zstory.valid_actions_model() is False
    assert zstory.valid_actions(CataloguedEnv()) is None and reached == []
    assert "python -m spacy download en_core_web_sm" in zstory.VALID_ACTIONS_MISSING
