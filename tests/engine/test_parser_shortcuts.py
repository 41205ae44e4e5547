"""The classic parser's shortcuts must read every command as the long way round does.

A phrase's reading is kept per world (``CommandParser._named``), its things
listed from a word's entry already in the world's order; a pattern's last slot
is greedy and the plain-line test possessive. Each is held here against the
long way on random words, in states along the solutions and after random play.
"""

import random
import re
from pathlib import Path

import pytest

from tui_adventure.engine.parsers import parser as P
from tui_adventure.engine.game import Game
from tui_adventure.engine.loading.loader import load_world

ROOT = Path(__file__).resolve().parents[2]
NAMES = ["house", "manor", "tutorial", "labyrinth"]


def solution(name: str) -> list[str]:
    text = (ROOT / "worlds" / "solutions" / f"{name}.txt").read_text(encoding="utf-8")
    return [c.strip() for c in text.splitlines() if c.strip()]


def vocabulary(world) -> list[str]:
    p = world.parser
    words = set(p.known_words) | {"xyzzy", "every", "thing", "one", "north", "n"}
    for ent in world.entities.values():
        words.add(ent.id)
        words.update(ent.words())
    return sorted(words)


def states_of(world, rng) -> list:
    game = Game(world)
    commands = solution(world.path.split("/")[-1].split(".")[0])
    pool = commands + [f"{v} {o}" for v in ("take", "drop", "open", "close", "x") for o in ("it", "all", "key", "box")]
    states = [game.state]
    for command in commands + [rng.choice(pool) for _ in range(80)]:
        game.step(command)
        states.append(game.state)
    return states


def lines(world, rng, n: int) -> list[str]:
    words = vocabulary(world)
    commands = solution(world.path.split("/")[-1].split(".")[0])
    out = []
    for _ in range(n):
        if rng.random() < 0.5:
            said = [rng.choice(words) if rng.random() < 0.3 else w for w in rng.choice(commands).split()]
        else:
            said = [rng.choice(words) for _ in range(rng.randint(1, 7))]
        if rng.random() < 0.2:
            said.insert(rng.randrange(len(said) + 1), rng.choice(["the", "a", "it", "them", "all", "  ", "The"]))
        out.append(" ".join(said))
    return out


def outcome(r):
    if isinstance(r, P.Parsed):
        return ("parsed", r.action.id, sorted(r.env.items(), key=repr), r.all_slot)
    if isinstance(r, P.Failure):
        return ("failure", r.phase, r.type, r.message)
    return ("question", r.message, r.action.id, sorted(r.env.items()), r.slot, r.candidates, sorted(r.phrases.items()))


@pytest.mark.parametrize("name", NAMES)
def test_a_phrase_read_before_is_read_as_if_afresh(name):
    world = load_world(ROOT / "worlds" / f"{name}.yaml")
    p = world.parser
    rng = random.Random(name)
    states = states_of(world, rng)
    ids = list(world.entities)
    for text in lines(world, rng, 1500):
        st = rng.choice(states)
        last = tuple(rng.sample(ids, rng.choice([0, 1, 1, 2])))
        warm = outcome(p._parse(text, st, last))   # _named filled by every parse before
        p._named.clear()
        assert outcome(p._parse(text, st, last)) == warm, text


@pytest.mark.parametrize("name", NAMES)
def test_a_phrases_things_are_the_intersection_in_the_worlds_order(name):
    world = load_world(ROOT / "worlds" / f"{name}.yaml")
    p = world.parser
    rng = random.Random(name)
    words = sorted(set(p.vocab) - P.DETERMINERS) + sorted(P.PRONOUNS) + ["take"]
    for _ in range(3000):
        said = [rng.choice(words) for _ in range(rng.randint(1, 4))]
        sets = [p.vocab.get(w, frozenset()) for w in said if w not in P.PRONOUNS]
        ids = frozenset.intersection(*sets) if sets else frozenset()
        got = p._name(" ".join(said))
        if set(said) <= p.known_words and not set(said) <= P.PRONOUNS | P.DETERMINERS:
            assert got == (tuple(world.sort_ids(ids)) or P.Failure("resolution", "not_visible",
                                                                  "You can't see any such thing.")), said


@pytest.mark.parametrize("name", NAMES)
def test_the_phrases_read_at_load_are_read_as_afresh(name):
    """A world's parser starts with every word of its things' names read, and their names of several
    words: each must be what ``_name`` makes of it with nothing read before (the same object for a
    word, its entry in ``in_order``)."""
    world = load_world(ROOT / "worlds" / f"{name}.yaml")
    p = world.parser
    seeded = dict(p._named)
    assert seeded and set(p.in_order) - P.DETERMINERS - P.PRONOUNS <= set(seeded) | {w for w in p.in_order if " " in w}
    p._named.clear()
    for phrase, named in seeded.items():
        assert p._name(phrase) == named, phrase
        if " " not in phrase:
            assert named is p.in_order[phrase]


def lazy_regex(syntax: str) -> re.Pattern:
    """The pattern as first written: every slot lazy."""
    parts = []
    for word in syntax.split():
        m = re.fullmatch(r"\{(\w+)\}", word)
        parts.append(f"(?P<{m.group(1)}>.+?)" if m else "(?:" + "|".join(map(re.escape, word.split("|"))) + ")")
    return re.compile("^" + " ".join(parts) + "$")


@pytest.mark.parametrize("name", NAMES)
def test_patterns_read_lines_as_their_lazy_regex_does(name):
    world = load_world(ROOT / "worlds" / f"{name}.yaml")
    p = world.parser
    rng = random.Random(name)
    patterns = {id(x): x for pats in p.tried.values() for x in pats}.values()
    for pat in patterns:
        lazy = lazy_regex(pat.text)
        literals = [a for w in pat.text.split() if not w.startswith("{") for a in w.split("|")]
        pool = literals * 3 + ["red", "book", "key", "it", "the", "on", "in", "of", "up"]
        for _ in range(300):
            line = " ".join(rng.choice(pool) for _ in range(rng.randint(1, 8)))
            a, b = pat.regex.match(line), lazy.match(line)
            assert (a and a.groups()) == (b and b.groups()), (pat.text, line)


def test_the_plain_line_test_is_the_regex_it_was():
    plain = re.compile(r"[a-z]+(?: [a-z]+)*\Z")
    rng = random.Random(5)
    for _ in range(20000):
        text = "".join(rng.choice("ab z  A9'-\t\u00e9") for _ in range(rng.randint(0, 8)))
        assert bool(P._PLAIN_RE.match(text)) == bool(plain.match(text)), repr(text)


@pytest.mark.parametrize("name", NAMES)
def test_lines_cut_without_the_regex_are_read_as_the_regex_reads_them(name):
    """Patterns of the shapes "verb {a}" and "verb {a} word {b}" cut a line with a find and slices
    (``Pattern.sep``): the parse, and each phrase handed on, must be the regex's, on random lines in
    states along the way."""
    world = load_world(ROOT / "worlds" / f"{name}.yaml")
    p = world.parser
    cuts = []
    resolve = p._resolve
    p._resolve = lambda pat, groups, *rest: cuts.append((pat.text, groups)) or resolve(pat, groups, *rest)
    rng = random.Random(name + "cut")
    states = states_of(world, rng)
    patterns = {id(x): x for pats in p.tried.values() for x in pats}.values()
    assert any(x.sep is None for x in patterns) and any(x.sep for x in patterns)
    ids = list(world.entities)
    extra = [a for x in patterns for w in x.text.split() if not w.startswith("{") for a in w.split("|")]
    texts = lines(world, rng, 1500) + [" ".join(rng.choice(extra + ["red", "book", "it"]) for _ in range(
        rng.randint(2, 7))) for _ in range(1500)]
    for text in texts:
        st = rng.choice(states)
        last = tuple(rng.sample(ids, rng.choice([0, 1, 2])))
        cuts.clear()
        cut = outcome(p._parse(text, st, last)), list(cuts)
        seps = [(x, x.sep) for x in patterns]
        for x in patterns:
            x.sep = ""
        try:
            cuts.clear()
            assert (outcome(p._parse(text, st, last)), cuts) == cut, text
        finally:
            for x, sep in seps:
                x.sep = sep


@pytest.mark.parametrize("name", NAMES)
def test_a_remembered_parse_is_the_parse_for_the_same_last(name):
    """The memo is keyed on the words alone, with what "it" meant kept beside it: a hit must be the
    parse afresh, whether "it" means the same (another list alike, or the same list) or not."""
    world = load_world(ROOT / "worlds" / f"{name}.yaml")
    p = world.parser
    rng = random.Random(name + "memo")
    states = states_of(world, rng)[:12]
    ids = list(world.entities)
    lasts = [[], *([x] for x in ids[:6]), ids[:2], ids[2:5]]
    texts = [t for t in lines(world, rng, 60) if len(t) <= P.MEMO_TEXT]
    texts += [f"{v} {w}" for v in ("take", "drop", "open", "x") for w in P.PRONOUNS]
    for _ in range(3000):
        text, st = rng.choice(texts), rng.choice(states)
        last = rng.choice(lasts)
        if rng.random() < 0.5:
            last = list(last)   # alike, not the same list
        assert outcome(p.parse(text, st, last)) == outcome(p._parse(text, st, last)), (text, last)
