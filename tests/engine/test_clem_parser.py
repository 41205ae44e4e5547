"""The clembench command parser against upstream traces and upstream's own lark grammar."""
import json
import re

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from tui_adventure.engine.parsers.clem_parser import ClemParser, ParsedAction, ParseFailure

from conftest import jsonl
from tui_adventure.instances.packaged import HOME

RES = HOME / "resources"


def _load(name):
    return json.loads((RES / name).read_text())


@pytest.fixture(scope="module")
def defs():
    return (_load("definitions/basic_actions_v2.json"), _load("definitions/home_entities.json"),
            _load("definitions/home_rooms.json"), _load("grammar_core.json"))


@pytest.fixture(scope="module")
def parser(defs):
    return ClemParser.from_definitions(*defs)


# --------------------------------------------------------------- explicit cases
@pytest.mark.parametrize("text,fail_type,message", [
    ("drop potted plant", "undefined_repr_str", "I don't know what 'potted' means."),
    ("drop book", "undefined_action_verb", "I don't know how to interpret this 'drop' action."),
    ("pick", "undefined_action_verb", "I don't know how to interpret this 'pick' action."),
    ("take", "malformed_command", "I don't know what you mean."),
    ("take ", "malformed_command", "I don't know what you mean."),
    ("done please", "malformed_command", "I don't know what you mean."),
    ("take book and plate", "malformed_command", "I don't know what you mean."),
    ("look", "undefined_action_verb", "I don't know how to interpret this 'look' action."),
    ("Look at the book", "undefined_action_verb", "I don't know how to interpret this 'look' action."),
    ("take book 2", "lark_exception", "I don't know what you mean."),
    ("take book, plate", "lark_exception", "I don't know what you mean."),
    ("take side-table", "lark_exception", "I don't know what you mean."),
    ("don't", "lark_exception", "I don't know what you mean."),
    ("", "lark_exception", "I don't know what you mean."),
    (" take book", "lark_exception", "I don't know what you mean."),
    ("done..", "lark_exception", "I don't know what you mean."),
    ("take book out  of fridge", "undefined_repr_str", "I don't know what 'of fridge' means."),
    ("take unicorn", "undefined_repr_str", "I don't know what 'unicorn' means."),
    ("take book from unicorn", "undefined_repr_str", "I don't know what 'unicorn' means."),
    ("take bedroom", "manipulating_room", "You can't take the 'bedroom'."),
    ("put kitchen on table", "manipulating_room", "You can't put the 'kitchen' anywhere."),
    ("open living room", "manipulating_room", "You don't need to open the 'livingroom'."),
    ("close kitchen", "manipulating_room", "You can't close the 'kitchen'."),
    ("take book from inventory", "taking_from_inventory",
     "You don't need to take things from your inventory."),
    ("take book from living room", "other_room_argument", "You are not in a livingroom."),
    ("take book from kitchen", "other_room_argument", "You are not in a kitchen."),
    ("put book in kitchen", "other_room_argument", "You are not in a kitchen."),
])
def test_failures(parser, text, fail_type, message):
    r = parser.parse(text, "livingroom", ())
    assert isinstance(r, ParseFailure)
    assert (r.fail_type, r.message, r.phase) == (fail_type, message, "parsing")


def test_failure_args(parser):
    assert parser.parse("look", "kitchen").arg == "look"
    assert parser.parse("take", "kitchen").arg == "{'type': 'unknown', 'arg1': 'take'}"
    assert parser.parse("take unicorn", "kitchen").arg == "unicorn"
    assert parser.parse("take bedroom", "kitchen").arg == "bedroom"
    assert parser.parse("take book from inventory", "kitchen").arg == "inventory"
    assert parser.parse("take book from living room", "kitchen").arg == "livingroom"


def test_taking_held_item_from_inventory_is_a_resolution_fail(parser):
    r = parser.parse("take pillow from inventory", "bedroom", {"pillow"})
    assert r == ParseFailure("taking_from_inventory", "The pillow is already in your inventory.",
                             "pillow", phase="resolution")


@pytest.mark.parametrize("text,verb,arg1,arg2,prep", [
    ("Done.", "done", None, None, None),
    ("quit!", "done", None, None, None),
    ("finish   ", "done", None, None, None),
    ("put book on table", "put", "book", "table", "on"),
    ("Put the book on the wooden side table.", "put", "book", "side table", "on"),
    ("place book table", "put", "book", "table", None),
    ("put book back on table", "put", "book", "table", "on"),
    ("take book out of refrigerator", "take", "book", "refrigerator", "out of"),
    ("pick up book", "take", "book", None, "up"),
    ("take the book from the small table", "take", "book", "table", "from"),
    ("go back to the living room", "go", "living room", None, None),
    ("go to kitchen", "go", "kitchen", None, None),
    ("examine living room", "examine", "living room", None, None),
    ("check inventory", "examine", "inventory", None, None),
    ("take book from kitchen", "take", "book", "kitchen", "from"),   # inside the kitchen
])
def test_successes(parser, text, verb, arg1, arg2, prep):
    r = parser.parse(text, "kitchen", ())
    assert isinstance(r, ParsedAction), r
    assert (r.verb, r.arg1, r.arg2, r.prep) == (verb, arg1, arg2, prep)


def test_types_are_converted(parser):
    r = parser.parse("put potted plant on side table", "hallway")
    assert (r.arg1_type, r.arg2_type) == ("pottedplant", "sidetable")


def test_a_command_seen_before_is_answered_from_the_cache(parser, monkeypatch):
    """Each distinct command is parsed once; every repeat is a cache hit with the same answer.
    (Its speed, cached and cold: benchmarks/bench_clem_parser.py.)"""
    texts = ["put book on table", "take the plate from the wooden counter", "go to living room",
             "open refrigerator", "take apple", "look", "done"]
    first = [parser.parse(t, "kitchen", ()) for t in texts]
    parsed = []
    structure = ClemParser._structure
    monkeypatch.setattr(ClemParser, "_structure", lambda self, text: parsed.append(text) or structure(self, text))
    again = [parser.parse(texts[i % len(texts)], "kitchen", ()) for i in range(700)]
    assert parsed == [] and again == first * 100
    parser._cache.clear()
    assert [parser.parse(t, "kitchen", ()) for t in texts] == first and parsed == texts


def test_parsers_of_other_words_read_a_text_their_own_way():
    """Readings are shared between parsers of one vocabulary (every clembench instance builds its own
    parser); a parser whose verbs, adjectives, determiners or prepositions differ reads alike texts
    by its own words, whichever parser read them first."""
    names = {"red book": "redbook", "book": "book", "table": "table", "shelf": "shelf", "blue shelf": "blueshelf"}
    verbs = {"take": ["take", "get"], "put": ["put"], "go": ["go"], "done": ["done"]}

    def make(verbs=verbs, adjs=("red",), preps=("on", "in", "from"), dets=("the", "a")):
        return ClemParser(names, {"kitchen": "kitchen"}, verbs, adjs, preps, dets)

    plain, red, grab, no_on, no_a = make(), make(adjs=()), make(verbs={**verbs, "take": ["take", "grab"]}), \
        make(preps=("in", "from")), make(dets=("the",))
    for _ in range(2):   # the second round reads what the first one left in the caches
        assert plain.parse("take red book", "kitchen").arg1 == "book"
        assert red.parse("take red book", "kitchen").arg1 == "red book"
        assert plain.parse("grab book", "kitchen").fail_type == "undefined_action_verb"
        assert grab.parse("grab book", "kitchen").arg1 == "book"
        assert grab.parse("get book", "kitchen").fail_type == "undefined_action_verb"
        assert plain.parse("put book on blue shelf", "kitchen").arg2 == "blue shelf"
        assert no_on.parse("put book on blue shelf", "kitchen").fail_type == "undefined_repr_str"
        assert plain.parse("take a book", "kitchen").arg1 == "book"
        assert no_a.parse("take a book", "kitchen").fail_type == "undefined_repr_str"
    assert make().parse("take red book", "kitchen").arg1 == "book"   # a new parser of the first one's words


def _defs_raw():
    return (_load("definitions/basic_actions_v2.json"), _load("definitions/home_entities.json"),
            _load("definitions/home_rooms.json"), _load("grammar_core.json"))


# ---------------------------------------------------------------- sample traces
def _traces():
    return jsonl("sample_traces.jsonl")


def test_sample_traces(parser, defs):
    room_of = {r["repr_str"]: r["type_name"] for r in defs[2]}
    ent_of = {e["repr_str"]: e["type_name"] for e in defs[1]}
    checked = 0
    for trace in _traces():
        room = room_of[re.match(r"You are in a (.+?) now\.", trace["initial_observation"]).group(1)]
        held: set = set()
        for cmd, fail, obs, act in zip(trace["commands"], trace["fails"], trace["observations"],
                                       trace["action_types"]):
            r = parser.parse(cmd, room, held)
            where = (trace["experiment"], trace["game_id"], cmd)
            if fail and (fail["phase"] == "parsing" or fail["fail_type"] == "taking_from_inventory"):
                assert isinstance(r, ParseFailure), where
                assert (r.phase, r.fail_type, r.message) == (fail["phase"], fail["fail_type"], obs), where
            else:
                assert isinstance(r, ParsedAction), (where, r)
                if act:
                    assert r.verb == act, where
            checked += 1
            if fail is None and isinstance(r, ParsedAction):   # track room and inventory
                m = re.match(r"You are in a (.+?) now\.", obs)
                if r.verb == "go" and m:
                    room = room_of[m.group(1)]
                m = re.search(r"In your inventory you have (.+)\.", obs)
                if r.verb == "take" and m:
                    held = {ent_of[x.strip()[2:]] for x in re.split(r", | and ", m.group(1))}
                if r.verb == "put":
                    held.discard(r.arg1_type)
    assert checked > 100


# ------------------------------------------------- differential test against lark
@pytest.fixture(scope="module")
def lark_parser(defs):
    """Upstream's grammar, assembled as its interpreter does."""
    import lark

    actions, entities, _, core = defs
    rules = [a["lark"].split(":")[0] for a in actions]
    adjs = sorted({a for e in entities for a in e.get("possible_adjs", ())})
    grammar = (core["grammar_head"] + f"action: {' | '.join(rules)} | unknown\n"
               + "\n".join(a["lark"] for a in actions) + "\n"
               + "ADJ.1: (" + " | ".join(f'"{a}"' for a in adjs) + ") WS\n" + core["grammar_foot"])
    return lark, lark.Lark(grammar, start="action")


def _lark_reading(lark, lp, text):
    """(kind, ...) like ClemParser._structure, from upstream's transformer logic."""
    try:
        tree = lp.parse(text)
    except lark.exceptions.LarkError:
        return ("error",)
    action = tree.children[0]
    kind = action.data.value
    if kind == "unknown":
        return ("unknown", next(c.value for c in action.children
                                if isinstance(c, lark.Token) and c.type == "WORD"))
    args, prep = [], None
    for c in action.children:
        if isinstance(c, lark.Tree) and c.data == "thing":
            args.append(" ".join(t.value for t in c.children if t.type == "WORD"))
        elif isinstance(c, lark.Token) and c.type == "PREP":
            prep = c.value.strip()
    return ("ok", kind, tuple(args), prep)


_VOCAB = ["take", "put", "go", "open", "close", "examine", "done", "drop", "get", "pick", "place",
          "move", "quit", "check", "look", "the", "a", "an", "wooden", "small", "down", "old",
          "on", "in", "from", "out", "of", "into", "up", "back", "to", "book", "side", "table",
          "living", "room", "potted", "plant", "inventory", "kitchen", "x", "please", "Book"]
_word = st.one_of(st.sampled_from(_VOCAB), st.text("abzq", min_size=1, max_size=3))
_sep = st.sampled_from([" ", " ", " ", " ", "  ", "\t"])
_junk = st.sampled_from(["", "", "", "", "", " ", ".", "!", ",", "1", "-", "'", " .", "é"])


def _assemble(parts, junk, pos, at_end):
    text = "".join(w + sep for w, sep in parts)
    if parts and parts[-1][1] == " ":
        text = text[:-1]        # trailing whitespace only sometimes
    return text + junk if at_end else text[:pos] + junk + text[pos:]


_commands = st.builds(_assemble, st.lists(st.tuples(_word, _sep), max_size=7), _junk,
                      st.integers(0, 60), st.booleans())


@pytest.mark.slow
@settings(max_examples=800, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_commands)
def test_agrees_with_lark(parser, lark_parser, text):
    lark, lp = lark_parser
    cleaned = (text[:-1] if text.endswith((".", "!")) else text).lower()
    expected = _lark_reading(lark, lp, cleaned)
    got = parser._structure(cleaned)
    tied = parser.candidates(cleaned)
    if len(tied) > 1:
        # lark breaks exact priority ties by its chart order, which we only
        # approximate: lark's pick must at least be one of the tied readings
        assert expected[1:] in tied, (cleaned, expected, tied)
        assert got[0] == "ok" and got[1:] in tied
    else:
        assert got == expected, (cleaned, expected, got)
