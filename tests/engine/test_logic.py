"""The rule language on its own: text parses to the named nodes it means, the walker sees scopes,
rewriting is hygienic, compiled closures agree with the facts, and bad text is a clear LogicError."""

import pytest

from tui_adventure.engine.facts import State
from tui_adventure.engine.rules.logic import Compiler
from tui_adventure.engine.rules.logic_ast import (
    Add, And, Atom, Compare, Const, Count, Delete, Exists, ForEach, Forall, LogicError, Not, Or, When, atoms_in,
    effect_predicates, expanded_predicates, fresh, names_in, parse_condition, parse_effects, substitute, walk,
)


def a(pred, *args):
    return Atom(pred, tuple(args))


@pytest.mark.parametrize("text, tree", [
    ("on(obj, s)", a("on", "obj", "s")),
    ("not open(c)", Not(a("open", "c"))),
    ("held(x) and not open(c)", And(a("held", "x"), Not(a("open", "c")))),
    # and binds tighter than or; both associate to the left
    ("p(x) or q(x) and r(x)", Or(a("p", "x"), And(a("q", "x"), a("r", "x")))),
    ("p(x) and q(x) and r(x)", And(And(a("p", "x"), a("q", "x")), a("r", "x"))),
    ("(p(x) or q(x)) and r(x)", And(Or(a("p", "x"), a("q", "x")), a("r", "x"))),
    ("not not p(x)", Not(Not(a("p", "x")))),
    ("exists r: at(x, r) and at(player, r)", Exists("r", And(a("at", "x", "r"), a("at", "player", "r")))),
    ("forall y: not in(y, x)", Forall("y", Not(a("in", "y", "x")))),
    ("count(held(_)) < 2", Count(a("held", "_"), "<", 2)),
    ("count(in(_, box)) >= -1", Count(a("in", "_", "box"), ">=", -1)),
    ("x == y", Compare("==", "x", "y")),
    ("obj != here", Compare("!=", "obj", "here")),
    ("true", Const(True)),
    ("false or p()", Or(Const(False), a("p"))),
    ("exit(here, north-west, _)", a("exit", "here", "north-west", "_")),
])
def test_conditions_parse_to_the_nodes_they_mean(text, tree):
    assert parse_condition(text) == tree


@pytest.mark.parametrize("text, trees", [
    ("add held(obj)", [Add(a("held", "obj"))]),
    ("del on(obj, _); add held(obj)", [Delete(a("on", "obj", "_")), Add(a("held", "obj"))]),
    ("when open(c): add seen(c)", [When(a("open", "c"), Add(a("seen", "c")))]),
    ("forall v where in(v, c): del in(v, c)", [ForEach("v", a("in", "v", "c"), Delete(a("in", "v", "c")))]),
    ("when p(x): forall v where q(v): add r(v, x)",
     [When(a("p", "x"), ForEach("v", a("q", "v"), Add(a("r", "v", "x"))))]),
])
def test_effects_parse_to_the_nodes_they_mean(text, trees):
    assert parse_effects(text) == trees


@pytest.mark.parametrize("text, message", [
    ("on(obj", "expected ')'"),
    ("on obj)", "expected '(' or a comparison after 'on'"),
    ("count(held(_)) 2", "count(...) needs a comparison"),
    ("count(held(_)) < two", "needs a number"),
    ("and(x)", "expected a name but found 'and'"),
    ("p(x) q(x)", "unexpected 'q'"),
    ("p(x) @", "unexpected ' @'"),
    ("(" * 150 + "p(x)" + ")" * 150, "nested more than 100 levels"),
    (" and ".join(["p(x)"] * 600), "more than 2,000 words"),
])
def test_bad_conditions_say_what_is_wrong(text, message):
    with pytest.raises(LogicError, match=message.replace("(", r"\(").replace(")", r"\)").replace(".", r"\.")):
        parse_condition(text)


@pytest.mark.parametrize("text, message", [
    ("hold(x)", "an effect starts with add, del, when or forall, not 'hold'"),
    ("add held(x);", "expected more at the end"),
    ("forall v: add p(v)", "expected 'where'"),
])
def test_bad_effects_say_what_is_wrong(text, message):
    with pytest.raises(LogicError, match=message.replace("(", r"\(").replace(")", r"\)")):
        parse_effects(text)


def test_the_walker_sees_every_node_with_the_variables_bound_there():
    tree = parse_condition("p(x) and exists r: q(x, r) and not s(r)")
    seen = [(type(n).__name__, sorted(b)) for n, b in walk(tree)]
    assert seen == [("And", []), ("Atom", []), ("Exists", []), ("And", ["r"]), ("Atom", ["r"]),
                    ("Not", ["r"]), ("Atom", ["r"])]
    assert names_in(tree) == {"x"}                      # r is bound inside, so not a name the check needs
    assert names_in(parse_condition("obj != here")) == {"obj", "here"}
    assert [x.pred for x in atoms_in(tree)] == ["p", "q", "s"]


def test_predicates_read_and_written():
    effects = parse_effects("del on(obj, _); when open(c): add seen(c); forall v where in(v, c): del in(v, c)")
    assert effect_predicates(effects) == {"on", "seen", "in"}
    macros = {"reachable": (("x",), parse_condition("at(x, here) or held(x)"))}
    assert expanded_predicates(parse_condition("reachable(obj) and not locked(obj)"), macros) == {"at", "held", "locked"}


def test_substitution_leaves_a_quantifiers_own_variable_alone_and_fresh_renames_it():
    body = parse_condition("p(x) and exists x: q(x)")
    assert substitute(body, {"x": "obj"}) == And(a("p", "obj"), Exists("x", a("q", "x")))
    renamed = fresh(parse_condition("exists r: q(r, y)"))
    assert isinstance(renamed, Exists) and renamed.var.startswith("r#") and renamed.body == a("q", renamed.var, "y")


def test_compiled_conditions_and_effects_agree_with_the_facts():
    st = State.of([("in", "coin", "box"), ("in", "key", "box"), ("held", "lamp"), ("open", "box")])
    c = Compiler(domain=("coin", "key", "lamp", "box"))
    env = {"c": "box"}
    holds = lambda text: c.condition(text, {"c"})(st, dict(env))   # noqa: E731
    assert holds("open(c) and count(in(_, c)) == 2")
    assert not holds("exists x: in(x, c) and held(x)")
    assert holds("forall x: not in(x, lamp)")
    assert holds("c == box") and not holds("c != box")
    adds, dels = set(), set()
    c.effects("forall v where in(v, c): del in(v, c); add empty(c)", {"c"})(st, dict(env), adds, dels)
    assert dels == {("in", "coin", "box"), ("in", "key", "box")} and adds == {("empty", "box")}
