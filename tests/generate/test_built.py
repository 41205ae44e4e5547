"""A generated world built straight from its draft (a trainer's reset: no checks) is the world the loader
makes of the same document: the same entities in the same order, facts in the same order, goals, texts
and making; and a document the generator does not write goes to the loader, errors and all."""

from dataclasses import fields

import pytest

from tui_adventure.engine.loading.loader import load_world_data
from tui_adventure.engine.yamlpos import SourceErrors
from tui_adventure.generate import Knobs, _making, _making_of_draft, generated_world
from tui_adventure.generate.built import world_of_draft
from tui_adventure.generate.classic import draft

KNOBS = [dict(rooms=6, objects=12, goals=2), dict(rooms=12, objects=30, goals=4, locked=3, doors=4),
         dict(rooms=3, objects=4, goals=2, containers=0, supports=0, theme="ship"),
         dict(rooms=9, objects=20, goals=3, theme="castle", split="test", doors=0),
         dict(rooms=1, objects=3, goals=1, theme="ship", split="train")]


def same(a, b) -> None:
    for f in fields(a):
        x, y = getattr(a, f.name), getattr(b, f.name)
        assert x == y, f.name
        if f.name in ("entities", "meta"):
            assert list(x) == list(y)
    assert [e.__dict__ for e in a.entities.values()] == [e.__dict__ for e in b.entities.values()]
    assert a.ruleset is b.ruleset and a.initial.facts == b.initial.facts
    assert a.parser.once.keys() == b.parser.once.keys() and a.parser.vocab == b.parser.vocab


@pytest.mark.slow
@pytest.mark.parametrize("knobs", KNOBS, ids=lambda k: "_".join(f"{v}" for v in k.values()))
def test_a_draft_built_without_the_loader_is_the_world_the_loader_makes(knobs):
    resolved = Knobs(**knobs).resolved()
    for seed in range(40):
        doc = {**draft(resolved, seed, 0).doc, "generated": _making(resolved, None, seed, 0)}
        path = f"<generated {resolved.theme} {seed}>"
        same(world_of_draft(doc, path), load_world_data(doc, path, lazy=True))
        same(generated_world(Knobs(**knobs), seed, solve=False), load_world_data(doc, path, lazy=True))
        assert _making_of_draft(resolved, seed) == _making(resolved, None, seed, 0)


def test_a_solved_world_is_built_without_the_loader_too():
    world = generated_world(Knobs(**KNOBS[0]), 5)
    assert world.par is not None and world.max_turns == max(30, 4 * world.par)
    assert world.meta["generated"]["features"]["par"] == world.par


def test_what_a_draft_never_holds_is_read_and_checked_by_the_loader():
    resolved = Knobs(**KNOBS[0]).resolved()
    doc = draft(resolved, 1, 0).doc
    odd = {**doc, "strict": True}
    assert world_of_draft(odd, "<odd>").strict is True
    bad = {**doc, "objects": {**doc["objects"], "lamp": {"name": "lamp", "held": "yes"}}}
    with pytest.raises(SourceErrors, match="held must be true"):
        world_of_draft(bad, "<bad>")
