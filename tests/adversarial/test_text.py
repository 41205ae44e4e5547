"""Undecodable bytes, lone surrogates and control characters at every boundary (issue 21)."""

from conftest import adventure
import json



def test_undecodable_input_in_the_repl_is_played_shown_and_recorded(tmp_path):
    out = adventure("repl", "tutorial", "--records", "r", cwd=tmp_path, stdin=b"xyzzy \x9b\ntake \xed\xa0\x80\nlook\n")
    assert out.returncode == 0, out.stderr
    text = out.stdout.decode("utf-8")            # what reached the terminal is valid UTF-8
    assert "Traceback" not in out.stderr.decode() and "Exits: north" in text
    interactions = next((tmp_path / "r").rglob("interactions.json"))
    data = json.loads(interactions.read_text(encoding="utf-8"))
    assert len(data["turns"]) == 3
    history = next((tmp_path / "home").rglob("*.txt")).read_bytes().decode("utf-8")
    assert "xyzzy" in history


def test_a_reply_with_a_lone_surrogate_is_recorded(tmp_path):
    replies = tmp_path / "replies.json"
    replies.write_text(json.dumps(["take \ud800", "done"]))
    out = adventure("run", "tutorial", "--player", f"scripted:{replies}", "--records", "r", cwd=tmp_path)
    assert out.returncode == 0, out.stderr.decode()
    episode = next((tmp_path / "r").rglob("instance_00000"))
    assert (episode / "completed.json").exists() and not (episode / "error.json").exists()
    data = json.loads((episode / "interactions.json").read_text(encoding="utf-8"))
    assert any("\ud800" in json.dumps(e, ensure_ascii=False) for t in data["turns"] for e in t)


def test_script_shows_escapes_and_splits_lines_as_the_repl_does(tmp_path):
    out = adventure("script", "tutorial", cwd=tmp_path, stdin="look\x0bxyzzy\u2028\x1b]0;owned\x07\n".encode())
    text = out.stdout.decode("utf-8")
    assert "\x1b" not in text and "\x07" not in text and "^[]0;owned^G" in text
    assert text.count("\n> ") == 1   # one command: \x0b and U+2028 do not split a line


def test_save_names_with_direction_overrides_are_refused(tmp_path):
    out = adventure("repl", "tutorial", "--records", "r", cwd=tmp_path,
                    stdin="save evil\u202egnp.exe\nsave ok-name\nsaves\n".encode())
    text = out.stdout.decode()
    assert "direction characters" in text and "ok-name" in text
    assert not [p for p in (tmp_path / "saves").iterdir() if "\u202e" in p.name]


def test_a_script_that_is_not_json_or_not_utf8_names_its_file(tmp_path):
    (tmp_path / "replies.json").write_text('["look",\n  oops]')
    (tmp_path / "replies.txt").write_bytes(b"look\n\xff\xfe\n")
    out = adventure("run", "tutorial", "--player", "scripted:replies.json", "--records", "r", cwd=tmp_path)
    assert out.returncode == 2 and out.stderr == ("adventure run: replies.json:2:3: not JSON (Expecting value);"
                                                  " a script is a JSON list of reply strings, or a text file"
                                                  " with one reply a line\n")
    out = adventure("run", "tutorial", "--player", "scripted:replies.txt", "--records", "r", cwd=tmp_path)
    assert out.returncode == 2
    assert out.stderr == "adventure run: replies.txt: not UTF-8 text (byte 5); save the script as UTF-8\n"


def test_a_script_nested_past_pythons_parser_names_its_file_in_one_line(tmp_path):
    (tmp_path / "deep.json").write_text("[" * 5000 + "]" * 5000)   # RecursionError in json.loads
    out = adventure("run", "tutorial", "--player", "scripted:deep.json", "--records", "r", cwd=tmp_path)
    assert out.returncode == 2 and "Traceback" not in out.stderr
    assert out.stderr.startswith("adventure run: deep.json: not a script (nested more than")
    assert out.stderr.count("\n") == 1
