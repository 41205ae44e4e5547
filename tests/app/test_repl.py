"""`adventure repl`: the completer, whole sessions typed through prompt_toolkit's pipe input, and piped stdin.

Keys for a whole session are sent before the prompt starts; prompt_toolkit
keeps what one prompt did not read for the next (its typeahead), so each
``\\r`` ends one prompt, as Enter would.
"""

import pytest
import io
import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

from prompt_toolkit.document import Document
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput

from conftest import ROOT, WORLDS, adventure

from tui_adventure.engine.loading.loader import load_world
from tui_adventure.repl.loop import Repl, SessionCompleter
from tui_adventure.keyboard.history import state_dir
from tui_adventure.keyboard.session import Session

CTRL_C, CTRL_D, F1, UP = "\x03", "\x04", "\x1bOP", "\x1b[A"
TUTORIAL_WIN = ["take letter", "north", "open mailbox", "put letter in mailbox"]


def session_for(tmp_path, world="tutorial.yaml", player=None, **kw) -> Session:
    w = world if not isinstance(world, str) else load_world(WORLDS / world)
    return Session(w, player, records=tmp_path / "records", saves=tmp_path / "saves", **kw)


def typed(session, keys: str) -> tuple[str, int]:
    """Play ``keys`` at the prompt (a whole session); what was printed and the exit status."""
    out = io.StringIO()
    with create_pipe_input() as pipe:
        pipe.send_text(keys)
        code = Repl(session, input=pipe, output=DummyOutput(), out=out, width=10_000).run()   # no wrapping here
    return out.getvalue(), code


def lines(*commands: str) -> str:
    return "".join(c + "\r" for c in commands)


def completions(session, text):
    doc = Document(text)
    return {(c.text, c.start_position) for c in SessionCompleter(session).get_completions(doc, None)}


def interactions(root: Path) -> dict:
    (path,) = root.glob("**/interactions.json")
    return json.loads(path.read_text())



# -- completion -------------------------------------------------------------------
def test_completer_offers_verbs_and_meta_commands_for_the_first_word(tmp_path):
    s = session_for(tmp_path, "house.yaml")
    assert ("take", -2) in completions(s, "ta")
    got = {text for text, _ in completions(s, "un")}
    assert {"undo", "unlock"} <= got
    assert ("look", -2) in completions(s, "  lo")


def test_completer_offers_the_names_in_sight_after_a_verb(tmp_path):
    s = session_for(tmp_path, "house.yaml")
    assert ("umbrella stand", -3) in completions(s, "examine umb")
    assert ("oak door", 0) in completions(s, "open ")
    assert not {text for text, _ in completions(s, "take fr")}   # the fridge is in another room


def test_completer_follows_the_player_into_another_room(tmp_path):
    s = session_for(tmp_path, "house.yaml")
    typed(s, lines("north") + CTRL_D)
    assert ("fridge", -2) in completions(s, "open fr")
    assert ("biscuit", -3) in completions(s, "take ginger bis")
    assert not completions(s, "examine umb")


# -- whole sessions at the prompt ----------------------------------------------------
def test_a_won_episode_at_the_prompt(tmp_path):
    s = session_for(tmp_path)
    out, code = typed(s, lines(*TUTORIAL_WIN, "done", "look") + CTRL_D)
    assert code == 0
    assert out.startswith("Posting a Letter\n\nWelcome!")
    assert "You put the letter in the mailbox.\n[All goals achieved! Type done to end the episode, or play on.]\n[goal +1: 1/1 goal]" in out
    assert "[won after 5 turns: 1/1 goal, main score 100]" in out
    assert out.rstrip().endswith("The episode has ended. Type undo, restart or quit.")
    data = interactions(tmp_path / "records")
    assert len(data["turns"]) == 5
    assert (next((tmp_path / "records").glob("**/instance_00000")) / "completed.json").exists()


def test_the_toolbar_shows_turns_par_goals_and_score(tmp_path):
    s = session_for(tmp_path)
    with create_pipe_input() as pipe:
        repl = Repl(s, input=pipe, output=DummyOutput(), out=io.StringIO())
        s.par(compute=True)
        assert repl.prompt.bottom_toolbar().startswith(" turn 0/30 · par 4 · goals 0/1 · score 0")
        pipe.send_text(lines(*TUTORIAL_WIN) + CTRL_D)
        repl.run()
        assert repl.prompt.bottom_toolbar().startswith(" turn 4/30 · par 4 · goals 1/1 (+1) · score 100")
        assert "F1 help" in repl.prompt.bottom_toolbar()


def test_every_typed_line_goes_to_the_world_history_file_and_comes_back_next_time(tmp_path):
    out, _ = typed(session_for(tmp_path), lines("look", "take letter", "score") + CTRL_D)
    files = list((state_dir() / "history").glob("*.txt"))
    assert len(files) == 1
    assert files[0].read_text().splitlines() == ["look", "take letter", "score"]
    # a new session of the same world: up-arrow twice brings back "take letter"
    out, _ = typed(session_for(tmp_path), UP + UP + "\r" + CTRL_D)
    assert "You take the letter." in out


def test_undo_takes_the_turn_back_and_out_of_the_records(tmp_path):
    s = session_for(tmp_path)
    out, _ = typed(s, lines("take letter", "undo", "undo") + CTRL_D)
    assert "[undid 1 turn]\nKitchen" in out
    assert "On the table you see a letter." in out.split("[undid 1 turn]")[1]
    assert out.rstrip().endswith("Nothing to undo.")
    assert interactions(tmp_path / "records")["turns"] == []


def test_save_and_restore(tmp_path):
    out, _ = typed(session_for(tmp_path), lines("take letter", "save before", "north", "restore before", "saves")
                   + CTRL_D)
    (saved,) = (tmp_path / "saves").rglob("before.json")     # in the world's own folder of saves
    assert f"[saved to {saved}]" in out
    restored = out.split("[restored before: turn 1]\n")[1]
    assert restored.startswith("Kitchen")
    assert "before  (turn 1" in restored


def test_score_and_help(tmp_path):
    out, _ = typed(session_for(tmp_path), lines("take letter", "score", "help") + CTRL_D)
    assert "Goals: 0/1\n  [ ] the letter is in the mailbox\nTurns: 1/30, par 4" in out
    assert "Verbs: " in out and "undo [N]: take back the last turn" in out


def test_quit_leaves_at_once(tmp_path):
    out, code = typed(session_for(tmp_path), lines("take letter", "quit", "north") + CTRL_D)
    assert code == 0
    assert "Garden" not in out
    assert len(interactions(tmp_path / "records")["turns"]) == 1


def test_ctrl_c_discards_the_line_being_typed(tmp_path):
    s = session_for(tmp_path)
    out, code = typed(s, "take let" + CTRL_C + lines("look") + CTRL_D)
    assert code == 0
    assert "You take the letter." not in out
    assert "On the table you see a letter." in out.split("Exits: north.", 1)[1]
    assert s.history.lines == ["look"]


def test_f1_shows_help_and_keeps_the_half_typed_line(tmp_path):
    out, _ = typed(session_for(tmp_path), "take le" + F1 + "tter\r" + CTRL_D)
    assert out.index("Meta-commands (no game time):") < out.index("You take the letter.")


def test_a_clembench_instance_starts_with_the_prompt_a_model_gets(tmp_path):
    """The person reads what the records say was sent: the rules, the goal, then the first observation."""
    from clem_helpers import world

    s = session_for(tmp_path, world("home_deliver_three_basic_easy", 0))
    out, _ = typed(s, lines("look") + CTRL_D)
    assert s.episode.first_message.startswith(s.world.meta["prompt"][:40])
    assert s.world.meta["prompt"][:40] in out and "Your goal for this game is" in out
    assert s.game.first_observation().strip() in out
    assert interactions(tmp_path / "records")["turns"][0][1]["action"]["content"] == "> look"


# -- a programmatic player ----------------------------------------------------------
def test_the_oracle_plays_to_the_end_and_the_repl_exits(tmp_path):
    from tui_adventure.players import make_player

    s = session_for(tmp_path, player=make_player("oracle"))
    out = io.StringIO()
    assert Repl(s, interactive=False, out=out).run() == 0
    text = out.getvalue()
    assert [ln for ln in text.splitlines() if ln.startswith("> ")] == [
        "> take letter", "> go north", "> open mailbox", "> put letter in mailbox", "> done"]
    assert text.rstrip().endswith("[won after 5 turns: 1/1 goal, main score 100]")


class _Broken:
    name = "broken"

    async def reply(self, episode, stream=None):
        raise ConnectionError("the server went away")


def test_a_player_that_fails_is_reported_not_raised(tmp_path):
    s = session_for(tmp_path, player=_Broken())
    out = io.StringIO()
    assert Repl(s, interactive=False, out=out).run() == 1
    assert "[broken: ConnectionError: the server went away]" in out.getvalue()
    assert list((tmp_path / "records").glob("**/error.json"))


SLOW_PLAYER = """
import asyncio, sys
from tui_adventure.engine.loading.loader import load_world
from tui_adventure.repl.loop import Repl
from tui_adventure.keyboard.session import Session

class Slow:
    name = "slow"
    async def reply(self, episode, stream=None):
        await asyncio.sleep(0.2)
        return "look"

s = Session(load_world(sys.argv[1]), Slow(), records="records")
sys.exit(Repl(s, interactive=False).run())
"""


@pytest.mark.slow
def test_ctrl_c_stops_a_model_and_keeps_the_records_valid(tmp_path):
    env = {**os.environ, "TUI_ADVENTURE_HOME": str(tmp_path / "home"), "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen([sys.executable, "-c", SLOW_PLAYER, str(WORLDS / "tutorial.yaml")], cwd=tmp_path,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    seen = 0
    while seen < 2:                      # two turns played, the third in flight
        line = proc.stdout.readline()
        assert line, proc.stderr.read()
        seen += line.startswith("> look")
    time.sleep(0.05)
    proc.send_signal(signal.SIGINT)
    rest, err = proc.communicate(timeout=20)
    assert proc.returncode == 130, err
    assert "Traceback" not in err
    assert "the records so far are kept]" in rest
    turns = interactions(tmp_path / "records")["turns"]
    assert 2 <= len(turns) <= 3
    assert not list((tmp_path / "records").glob("**/completed.json"))


# -- piped stdin, end to end ----------------------------------------------------------
def test_piped_commands_play_in_plain_text_and_write_records(tmp_path):
    run = adventure("repl", str(WORLDS / "house.yaml"), "--records", str(tmp_path / "rec"),
                    stdin="look\ntake lamp\nup\n\nfly away\nscore\n", cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    assert "\x1b" not in run.stdout
    assert run.stdout.startswith("The House on the Hill\n")
    assert "> up\nLanding" in run.stdout
    assert "> fly away\n" in run.stdout
    assert "Turns: 4/60, par 21" in run.stdout
    data = interactions(tmp_path / "rec" / "human")
    assert [t[1]["action"]["content"] for t in data["turns"]] == ["look", "take lamp", "up", "fly away"]


def test_piped_oracle_wins_the_tutorial(tmp_path):
    run = adventure("repl", str(WORLDS / "tutorial.yaml"), "--player", "oracle", "--records", "rec",
                    stdin="", cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    assert "\x1b" not in run.stdout
    assert "[won after 5 turns: 1/1 goal, main score 100]" in run.stdout
    assert list((tmp_path / "rec" / "oracle").glob("**/completed.json"))


def test_a_broken_world_or_player_is_reported_in_one_line(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("start: hall\nrooms: [\n")
    run = adventure("repl", str(bad), cwd=tmp_path)
    assert run.returncode == 1
    assert run.stderr.startswith(f"{bad}:")
    run = adventure("repl", str(WORLDS / "tutorial.yaml"), "--player", "nobody", cwd=tmp_path)
    assert run.returncode == 1
    assert "unknown player 'nobody'" in run.stderr


def test_at_a_terminal_text_wraps_at_words_never_inside_one(tmp_path):
    import io

    from tui_adventure.repl.loop import Repl

    out = io.StringIO()
    s = session_for(tmp_path, "house.yaml")
    Repl(s, interactive=False, lines=io.StringIO("west\n"), out=out, width=32).run()
    lines = out.getvalue().splitlines()
    assert all(len(ln) <= 32 for ln in lines)
    words = set(out.getvalue().split())
    assert "living" in words and "l" not in words


# -- a model's turn ---------------------------------------------------------------------
class _Thinker:
    """A model that says more than its command on the first turn, then plays the tutorial out."""

    name = "thinker"

    async def reply(self, episode, stream=None):
        from tui_adventure.players import Reply

        n = len(episode.turns)
        if stream:
            stream("The letter first.\n> take")
        if n == 0:
            return Reply("> take letter", latency=1.5, tokens_in=120, tokens_out=9, tokens_estimated=True,
                         finish_reason="tool_calls", raw="The letter first.\n> take letter\nThen north.",
                         tool_calls=(("act", '{"command": "take letter", "next_actions": ["north"]}'),))
        command = (TUTORIAL_WIN + ["done"])[n]
        return Reply(f"> {command}", latency=0.25, tokens_in=200, tokens_out=4, finish_reason="stop")


def test_a_models_extra_lines_are_set_apart_from_the_games_answer(tmp_path):
    out = io.StringIO()
    assert Repl(session_for(tmp_path, player=_Thinker()), interactive=False, out=out).run() == 0
    text = out.getvalue()
    assert ("thinker: > take letter\n"
            "  | The letter first.\n"
            "  | Then north.\n"
            '  | call act(command="take letter", next_actions=["north"])\n'
            "[1.50 s · tokens ≈120 in, ≈9 out (estimated) · finish: tool_calls]\n"
            "You take the letter.\n") in text                          # then the game's answer, as ever
    assert "thinker: > north\n[0.25 s · tokens 200 in, 4 out · finish: stop]\nGarden\n" in text
    assert "\x1b" not in text and "> take\n" not in text            # piped: plain, and nothing streamed


def test_at_a_terminal_the_stream_is_one_erased_line_and_the_turn_is_printed_whole(tmp_path):
    out = io.StringIO()
    Repl(session_for(tmp_path, player=_Thinker()), interactive=False, out=out, color=True, width=80).run()
    text = out.getvalue()
    assert "\r\x1b[K\x1b[2mthinker: The letter first. > take\x1b[0m\r\x1b[K" in text   # live, then erased
    plain = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", text).replace("\r\n", "\n")
    assert "thinker: > take letter\n  | The letter first.\n  | Then north.\n" in plain
