"""A study over story files: in the app and from a pipe to its end, a practice world that teaches classic
commands, and participants paired with a model by adventure eval on the story episodes both finished."""

from __future__ import annotations

import csv
import io

import pytest

from conftest import adventure
from pilot import settle, transcript, type_line
from stories import STORIES, new_story_game, walkthrough

from tui_adventure.engine.yamlpos import SourceErrors
from tui_adventure.study import StudyRun, load_study

LOSE = [line.strip() for line in (STORIES / "cellar.lose").read_text().splitlines() if line.strip()]


def story_study(tmp_path, extra: str = ""):
    new_story_game().close()   # Jericho there, or the test fails naming the set-up
    path = tmp_path / "study.yaml"
    path.write_text(f"title: Classics\ninstructions: Play each story.\n{extra}worlds:\n"
                    f"  - {STORIES / 'lighthouse.z5'}\n  - {STORIES / 'cellar.z5'}\norder: fixed\n")
    return load_study(path)


@pytest.mark.slow
async def test_a_story_file_study_in_the_app_runs_to_its_end(tmp_path):
    from tui_adventure.app import AdventureApp
    from tui_adventure.screens.play import PlayScreen
    from tui_adventure.screens.study import IntermissionScreen

    run = StudyRun(story_study(tmp_path), "ann", tmp_path / "records")
    app = AdventureApp(study=run, cursor_blink=False)
    async with app.run_test(size=(110, 32)) as pilot:
        assert isinstance(app.screen, IntermissionScreen)
        shown = str(app.screen.query_one("#intermission").render())
        assert "classic text adventure" in shown and '"take lamp"' in shown
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, PlayScreen) and "Beach" in transcript(app)
        for line in walkthrough("lighthouse"):
            await type_line(pilot, line)
        await settle(pilot)
        assert "You have won" in transcript(app) and "Press Enter to go on." in transcript(app)
        await type_line(pilot, "")
        assert "1 of 2 done" in str(app.screen.query_one("#intermission").render())
        await pilot.press("enter")
        await pilot.pause()
        for line in LOSE:
            await type_line(pilot, line)
        await settle(pilot)
        assert "You have died" in transcript(app)
        await type_line(pilot, "")
        await pilot.pause()
        assert "All 2 worlds of Classics are done" in str(app.screen.query_one("#intermission").render())
    assert run.done_count() == 2
    for name in ("lighthouse", "cellar"):
        assert (tmp_path / f"records/human-ann/{name}/{name}.z5/instance_00000/completed.json").exists()


def test_the_practice_world_of_a_story_file_study_teaches_classic_commands(tmp_path):
    run = StudyRun(story_study(tmp_path, "practice: tutorial\n"), "p1", tmp_path / "records")
    said = run.intermission(run.next_stage())
    assert said.startswith("First a practice world") and '"north", "take lamp", "look"' in said
    with pytest.raises(SourceErrors) as caught:
        story_study(tmp_path, "practice: clembench/home_deliver_three_basic_easy/0\n")
    message = str(caught.value)
    assert len(message.splitlines()) == 1 and "study.yaml:3:" in message and "use practice: tutorial" in message


def test_participants_and_a_model_are_paired_on_the_story_episodes_both_finished(tmp_path):
    from tui_adventure.repl.loop import run_study

    records = tmp_path / "records"
    study = story_study(tmp_path)
    piped = "\n" + "\n".join(walkthrough("lighthouse")) + "\n\n" + "\n".join(LOSE) + "\n"
    out = io.StringIO()
    assert run_study(StudyRun(study, "bea", records), interactive=False, lines=io.StringIO(piped), out=out) == 0
    assert "classic text adventure" in out.getvalue() and "All 2 worlds of Classics are done" in out.getvalue()
    script = tmp_path / "lighthouse.txt"
    script.write_text("\n".join(walkthrough("lighthouse")) + "\n")
    played = adventure("run", STORIES / "lighthouse.z5", "--player", f"scripted:{script}", "--records", records,
                       cwd=tmp_path)
    assert played.returncode == 0, played.stderr
    assert adventure("score", records, cwd=tmp_path).returncode == 0
    result = adventure("eval", records, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    paired = {(r["humans"], r["metric"], r["experiment"]): r for r in csv.DictReader((records / "paired.csv").open())}
    row = paired[("human-bea", "Main Score", "all")]
    assert row["model"] == "scripted" and row["n_instances"] == "1"   # only the story both finished
    assert float(row["model_mean"]) == float(row["human_mean"]) == 100.0
    assert ("human-bea", "Main Score", "cellar/cellar.z5") not in paired
