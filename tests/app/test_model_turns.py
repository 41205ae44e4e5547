"""How a model's turn reads in both front ends: the command, what else the model wrote, the figures."""

from tui_adventure.gamemaster.episode import Turn
from tui_adventure.keyboard.model_turns import format_call, model_turn, request_messages
from tui_adventure.players import Reply


def turn(reply: Reply, command: str | None) -> Turn:
    return Turn(1, reply.text, command=command, answer=reply)


def test_a_reply_that_is_only_the_command_shows_nothing_more():
    shown = model_turn(turn(Reply("> go north", latency=0.5, tokens_in=30, tokens_out=4, finish_reason="stop",
                                  raw="> go north\n"), "go north"))
    assert shown.command == "> go north"
    assert shown.said == shown.extra == ()
    assert shown.figures == "0.50 s · tokens 30 in, 4 out · finish: stop"


def test_the_raw_reply_beside_the_command_and_tool_calls_as_calls():
    reply = Reply("> take key\nNext actions: go east", latency=1.234, tokens_in=812, tokens_out=14,
                  finish_reason="tool_calls", raw="A key! I take it.\n\n> take key",
                  tool_calls=(("act", '{"command": "take key", "next_actions": ["go east"]}'), ("look", "{oops")))
    shown = model_turn(turn(reply, "take key"))
    assert shown.said == ("A key! I take it.", "", "> take key",
                          'call act(command="take key", next_actions=["go east"])', "call look({oops)")
    assert shown.extra == ("A key! I take it.", 'call act(command="take key", next_actions=["go east"])',
                           "call look({oops)")


def test_estimated_tokens_say_so():
    shown = model_turn(turn(Reply("look", latency=2, tokens_in=100, tokens_out=3, tokens_estimated=True), "look"))
    assert shown.figures == "2.00 s · tokens ≈100 in, ≈3 out (estimated)"


def test_re_asks_are_in_the_turns_time_and_said():
    attempts = ({"start": "2026-01-01T10:00:00.000", "seconds": 120.0, "outcome": "asked again: timed out:"
                 " no answer within 120 s from http://127.0.0.1:8080/v1"},
                {"start": "2026-01-01T10:02:01.000", "seconds": 3.1, "outcome": "asked again: the stream ended"
                 " without a finish reason after 4 characters (cut off by the server)"},
                {"start": "2026-01-01T10:02:05.000", "seconds": 4.57, "outcome": "answered"})
    shown = model_turn(turn(Reply("look", latency=129.7, attempts=attempts,
                                  notes=("asked as learned on 2026-01-01 09:00 (kept in the cache)",)), "look"))
    assert shown.figures.startswith("129.70 s in all, 2 re-asks (120.0 s: timed out: no answer within 120 s from"
                                    " http://127.0.0.1:8080/v1; 3.1 s: the stream ended without a finish reason"
                                    " after 4 characters (cut off by the ser…)")
    assert shown.figures.endswith(" · asked as learned on 2026-01-01 09:00 (kept in the cache)")
    once = model_turn(turn(Reply("look", latency=4.57, attempts=attempts[2:]), "look"))
    assert once.figures == "4.57 s"


def test_a_refused_reply_is_shown_whole():
    shown = model_turn(turn(Reply("I would go north.", latency=0.1), None))
    assert shown.command == "(no command: the reply was refused)"
    assert shown.said == shown.extra == ("I would go north.",)


def test_a_program_turn_is_not_a_model_turn():
    assert model_turn(turn(Reply("> look"), "look")) is None
    assert model_turn(Turn(1, "look", command="look")) is None


def test_calls_with_odd_arguments():
    assert format_call("done", "") == "done()"
    assert format_call("go", "[1, 2]") == "go([1, 2])"
    assert format_call("take", {"thing": "clé"}) == 'take(thing="clé")'


def test_request_messages_in_openai_and_anthropic_shapes():
    sent = [{"role": "user", "content": "You are in a hallway."},
            {"role": "assistant", "content": None,
             "tool_calls": [{"id": "c1", "type": "function",
                             "function": {"name": "act", "arguments": '{"command": "look"}'}}]},
            {"role": "tool", "tool_call_id": "c1", "content": "A hallway."},
            {"role": "assistant", "content": [
                {"type": "text", "text": "Hm."},
                {"type": "tool_use", "id": "t1", "name": "act", "input": {"command": "up"}}]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "Landing."}]}]
    shown = request_messages(Reply("> up", call={"manipulated_prompt_obj": sent}, latency=1))
    assert shown == [("user", "You are in a hallway."),
                     ("assistant", 'call act(command="look")'),
                     ("tool (result of c1)", "A hallway."),
                     ("assistant", 'Hm.\ncall act(command="up")'),
                     ("user", "result of t1: Landing.")]
