"""The dashboard's figures: alerts when a run's errors jump, its server slows or episodes all repeat one
command (and none in a steady run), the filter's words, and a model's turn read back from the records."""

from tui_adventure.players.recorded import duration, recorded_reply
from tui_adventure.watch.episodes import ERROR, RUNNING, SUCCESS, EpisodeInfo
from tui_adventure.watch.runs import RunFacts, alerts, run_rows
from tui_adventure.watch.view import parse_filter, select


def ep(n, status=RUNNING, run="m", command="look", repeats=1, since=0, turns=5):
    return EpisodeInfo(run, f"w{n}", f"w{n}", "instance_00000", status=status, turns=turns, last_command=command,
                       repeats=repeats, since_progress=since)


def test_a_jump_in_a_runs_error_rate_is_an_alert_a_steady_rate_is_not():
    facts = RunFacts("m")
    facts.endings = [(t, t % 10 == 0) for t in range(40)]           # one in ten errored, all along
    assert alerts({"m": facts}, []) == []
    facts.endings += [(100 + t, t < 6) for t in range(10)]          # then six of the last ten
    (line,) = alerts({"m": facts}, [])
    assert line.startswith("m: 6 of its last 10 episodes errored (before: 4 of 40)")


def test_a_server_answering_much_slower_than_before_is_an_alert():
    facts = RunFacts("m")
    facts.add_turns(None, [float(t) * 0.3 for t in range(30)])       # 0.3 s a turn
    assert alerts({"m": facts}, []) == []
    last = facts.stamps[-1]
    facts.add_turns(last, [last + 4.0 * (k + 1) for k in range(20)])  # then 4 s a turn
    (line,) = alerts({"m": facts}, [])
    assert "turns take 4.0 s now, 0.3 s before" in line
    assert facts.turns_per_minute() == 15


def test_episodes_all_stuck_on_one_command_are_an_alert():
    episodes = [ep(n, command="look", repeats=4) for n in range(3)] + [ep(9, command="go north")]
    (line,) = alerts({}, episodes)
    assert line.startswith("3 of 4 running episodes repeat 'look'")
    episodes.append(ep(10, command="look", repeats=1))
    episodes += [ep(20 + n, command=f"take {n}") for n in range(4)]   # most episodes are doing fine
    assert alerts({}, episodes) == []


def test_run_rows_count_done_running_errored_and_left():
    facts = RunFacts("m", planned=10)
    episodes = [ep(0, SUCCESS, turns=8), ep(1, ERROR), ep(2)]
    episodes[0].main_score = 100.0
    episodes[1].problem = "ModelError: 500"
    (row,) = run_rows({"m": facts}, episodes)
    assert (row.done, row.running, row.errored, row.left, row.success, row.mean_turns, row.main_score) == \
        (1, 1, 1, 7, "1/1", "8.0", "100.0")
    assert row.last_error == "w1: ModelError: 500"


def test_the_filter_reads_runs_worlds_outcomes_stuck_and_words():
    episodes = [ep(0, run="gpt"), ep(1, SUCCESS, run="gpt", command="take key"), ep(2, run="llama", since=12),
                ep(3, run="llama", repeats=3, command="look")]
    names = lambda text: [e.world for e in select(episodes, parse_filter(text), "world")[0]]  # noqa: E731
    assert names("run:gpt") == ["w0", "w1"]
    assert names("outcome:succ") == ["w1"]
    assert names("stuck") == ["w2", "w3"]
    assert names("stuck:20") == ["w3"]
    assert names("world:w2 world:w3 run:llama") == ["w2", "w3"]
    assert names("LOOK") == ["w0", "w2", "w3"]
    assert parse_filter("stuck:x run:").problem.startswith("ignored: stuck:x run:")
    assert select(episodes, parse_filter(""), "status", limit=2)[1] == 4


def test_a_recorded_model_call_reads_back_as_the_reply_the_app_draws():
    openai = {"manipulated_prompt_obj": [{"role": "user", "content": "You are in the hall."}],
              "raw_response_obj": {"choices": [{"message": {"content": "The key first.\n> take key",
                                                            "tool_calls": None}, "finish_reason": "stop"}],
                                   "usage": {"prompt_tokens": 120, "completion_tokens": 9},
                                   "clem_player": {"call_duration": "0:00:01.500000", "response": "> take key"}}}
    reply = recorded_reply(openai)
    assert (reply.text, reply.raw, reply.tokens_in, reply.tokens_out, reply.latency, reply.finish_reason,
            reply.tokens_estimated) == ("> take key", "The key first.\n> take key", 120, 9, 1.5, "stop", False)
    anthropic = {"raw_response_obj": {"content": [{"type": "tool_use", "name": "act", "input": {"command": "look"}}],
                                      "stop_reason": "tool_use", "usage": {"input_tokens": 50, "output_tokens": 4},
                                      "clem_player": {"call_duration": "0:00:00.250000", "response": "look"}}}
    reply = recorded_reply(anthropic)
    assert reply.tool_calls == (("act", '{"command": "look"}'),) and reply.latency == 0.25 and reply.raw == ""
    no_usage = {"raw_response_obj": {"choices": [{"message": {"content": "look"}}], "usage": None,
                                     "clem_player": {"response": "look"}}, "manipulated_prompt_obj": "x" * 400}
    reply = recorded_reply(no_usage)
    assert reply.tokens_estimated and reply.tokens_in == 100
    human = {"raw_response_obj": {"clem_player": {"response": "look", "call_duration": "0:00:03"}}}
    assert recorded_reply(human) is None and recorded_reply(None) is None and recorded_reply("x") is None
    assert duration("1 day, 0:00:02.5") == 86402.5


def test_the_errored_cell_is_whole_with_stopped_episodes():
    from tui_adventure.watch.runs import RunRow
    from tui_adventure.watch.view import RUN_COLUMNS, Columns, run_cells

    columns = Columns(RUN_COLUMNS)
    cells = run_cells(RunRow("m", errored=0, stopped=3))
    _, ((_, line),) = columns.lines([("m", cells)])
    assert columns.split(line)[RUN_COLUMNS.index("errored")] == "0 (+3 stopped)"
