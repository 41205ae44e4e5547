"""A traceback through a world's rule shows the rule's source and names the rule (linecache)."""

import traceback

from tui_adventure.engine.facts import State
from tui_adventure.engine.rules.logic import Compiler


def test_a_failing_rule_shows_its_source_and_names_the_rule():
    def boom(st, x):
        raise ZeroDivisionError("inside a builtin")

    compiler = Compiler(builtins={"boom": boom}, macros={}, domain=("lamp",))
    cond = compiler.condition("boom(x) and not lit(x)", {"x"}, origin="action light, check boom(x)")
    try:
        cond(State.of([]), {"x": "lamp"})
    except ZeroDivisionError:
        text = traceback.format_exc()
    else:
        raise AssertionError("the builtin was not called")
    assert "action light, check boom(x)" in text   # the frame's file names the rule
    frame = [line for line in text.splitlines() if "action light" in line][0]
    shown = text.splitlines()[text.splitlines().index(frame) + 1]
    assert shown.strip().startswith("return (")   # the rule's own line, not a blank
