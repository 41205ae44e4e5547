"""Outputs are regular files written atomically (issue 55): a path the user names to write to that is
a FIFO, a device node or a symlink is refused with one line naming it and the fix, exit 1, and is
left exactly as it was; a folder named as --out that is a symlink or not a folder likewise."""

import os
import shutil
import stat

import pytest

from conftest import DATA

from tui_adventure.cli.main import main


@pytest.fixture(scope="module")
def played(tmp_path_factory):
    """A scored records tree of one oracle episode."""
    records = tmp_path_factory.mktemp("played") / "records"
    assert main(["run", "tutorial", "--player", "oracle", "--records", str(records)]) == 0
    assert main(["score", str(records)]) == 0
    return records


@pytest.fixture
def records(played, tmp_path):
    copy = tmp_path / "records"
    shutil.copytree(played, copy)
    return copy


# the commands that write the one file or the one folder --out names
FILE_WRITERS = {
    "export trajectories": lambda rec, out: ["export", "trajectories", str(rec), "--out", out],
    "import textworld": lambda rec, out: ["import", "textworld", str(DATA / "textworld" / "tw_small.json"),
                                          "--out", out],
    "import labyrinth": lambda rec, out: ["import", "labyrinth", str(DATA / "labyrinth" / "bridge_scene.json"),
                                          "--out", out],
}
FOLDER_WRITERS = {
    "export pddl": lambda out: ["export", "pddl", "tutorial", "--out", out],
    "export clemgame": lambda out: ["export", "clemgame", "tutorial", "--out", out],
    "generate": lambda out: ["generate", "--out", out, "--rooms", "3", "--objects", "5", "--goals", "1"],
    "generate clembench": lambda out: ["generate", "--flavour", "clembench", "--out", out, "--rooms", "3",
                                       "--goals", "1"],
    "import clembench": lambda out: ["import", "clembench", "--out", out],
}


def refused(capsys, argv, path, says):
    code = main(argv)
    err = capsys.readouterr().err
    assert code == 1, err
    assert err.count("\n") == 1 and str(path) in err and says in err and "Traceback" not in err, err


def targets(tmp_path, kind):
    """A target of ``kind`` and a check that it is as it was."""
    if kind == "fifo":
        path = tmp_path / "pipe"
        os.mkfifo(path)
        return path, "named pipe", lambda: stat.S_ISFIFO(os.lstat(path).st_mode)
    if kind == "symlink":
        elsewhere = tmp_path / "elsewhere.txt"
        elsewhere.write_text("keep me\n")
        path = tmp_path / "link"
        path.symlink_to(elsewhere)
        return path, "symlink", lambda: path.is_symlink() and elsewhere.read_text() == "keep me\n"
    path = "/dev/null"   # a device every system has; nothing may replace it
    return path, "device", lambda: stat.S_ISCHR(os.lstat(path).st_mode)


@pytest.mark.parametrize("kind", ["fifo", "symlink", "device"])
@pytest.mark.parametrize("command", sorted(FILE_WRITERS))
def test_a_file_writer_refuses_what_is_not_a_regular_file(tmp_path, records, capsys, command, kind):
    path, says, unchanged = targets(tmp_path, kind)
    refused(capsys, FILE_WRITERS[command](records, str(path)), path, says)
    assert unchanged()


@pytest.mark.parametrize("kind", ["fifo", "symlink", "device"])
@pytest.mark.parametrize("command", sorted(FOLDER_WRITERS))
def test_a_folder_writer_refuses_what_is_not_a_folder(tmp_path, capsys, command, kind):
    path, says, unchanged = targets(tmp_path, kind)
    refused(capsys, FOLDER_WRITERS[command](str(path)), path, says)
    assert unchanged()


@pytest.mark.parametrize("command", sorted(FOLDER_WRITERS))
def test_a_folder_writer_refuses_a_symlink_to_a_folder(tmp_path, capsys, command):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    link = tmp_path / "link"
    link.symlink_to(elsewhere, target_is_directory=True)
    refused(capsys, FOLDER_WRITERS[command](str(link)), link, "symlink")
    assert link.is_symlink() and not any(elsewhere.iterdir())


def test_a_file_inside_the_folder_that_is_a_pipe_is_left_alone(tmp_path, capsys):
    out = tmp_path / "pddl"
    out.mkdir()
    os.mkfifo(out / "domain.pddl")
    refused(capsys, ["export", "pddl", "tutorial", "--out", str(out)], out / "domain.pddl", "named pipe")
    assert stat.S_ISFIFO(os.lstat(out / "domain.pddl").st_mode)


@pytest.mark.parametrize("kind", ["fifo", "symlink"])
def test_eval_refuses_a_table_that_is_not_a_regular_file(records, tmp_path, capsys, kind):
    path, says, unchanged = targets(tmp_path, kind)
    table = records / "results.csv"
    os.rename(path, table)
    refused(capsys, ["eval", str(records)], table, says)
    assert stat.S_ISFIFO(os.lstat(table).st_mode) if kind == "fifo" else table.is_symlink()
    assert not (records / "results.html").exists()   # refused before any table is written
    if kind == "symlink":
        assert (tmp_path / "elsewhere.txt").read_text() == "keep me\n"


def test_score_leaves_a_scores_file_that_is_a_pipe(records, capsys):
    scores = next(records.rglob("scores.json"))
    scores.unlink()
    os.mkfifo(scores)
    code = main(["score", str(records)])
    err = capsys.readouterr().err
    assert code == 1 and err.count("\n") == 1 and "scores.json is a named pipe" in err, err
    assert stat.S_ISFIFO(os.lstat(scores).st_mode)


def test_writers_still_write_regular_files_and_new_paths(records, tmp_path, capsys):
    out = tmp_path / "t.jsonl"
    out.write_text("old\n")
    assert main(["export", "trajectories", str(records), "--out", str(out)]) == 0
    assert out.read_text().startswith("{")
    assert main(["export", "pddl", "tutorial", "--out", str(tmp_path / "new" / "pddl")]) == 0
    assert (tmp_path / "new" / "pddl" / "domain.pddl").is_file()
