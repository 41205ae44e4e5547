"""Imported files from other tools meet a one-line error, never a traceback (issue 35).

Every value of a real TextWorld game and a real Labyrinth scene is replaced, one
at a time, by a value of each wrong type; nesting deeper than any real file is
tried on each importer from the command line.
"""

import copy
import json

import pytest

from conftest import DATA, adventure
from tui_adventure.labyrinth import LabyrinthError, import_scene
from tui_adventure.textworld import TextWorldError, convert, load_game

WRONG = [None, 3, "x", [1, "a"], {"a": 1}]   # each JSON type a value can wrongly have
DEEP = "[" * 50_000 + "]" * 50_000
SHALLOWER = "[" * 900 + "]" * 900


def places(value, at=()):
    """Every path into ``value`` (lists: their first four items)."""
    yield at
    if isinstance(value, dict):
        for k, v in value.items():
            yield from places(v, at + (k,))
    elif isinstance(value, list):
        for i, v in enumerate(value[:4]):
            yield from places(v, at + (i,))


def replaced(doc, at, new):
    """``doc`` with the value at path ``at`` replaced by ``new``, ``doc`` unchanged: only the lists and
    dicts along the path are copied, the rest is shared (the tests only serialise it)."""
    if not at:
        return new
    outer = copy.copy(doc)
    outer[at[0]] = replaced(doc[at[0]], at[1:], new)
    return outer


def mutants(source):
    doc = json.loads(source.read_text())
    return [(at, wrong, replaced(doc, at, wrong)) for at in places(doc) for wrong in WRONG]


@pytest.mark.slow
def test_a_labyrinth_scene_with_any_value_of_a_wrong_type_is_one_error(tmp_path):
    source, target = tmp_path / "scene.json", tmp_path / "scene.yaml"
    for at, wrong, doc in mutants(DATA / "labyrinth" / "bridge_scene.json"):
        source.write_text(json.dumps(doc))
        try:
            import_scene(source, target)
        except LabyrinthError as exc:
            assert "\n" not in str(exc) and str(source) in str(exc), (at, wrong)


@pytest.mark.slow
def test_a_textworld_game_with_any_value_of_a_wrong_type_is_one_error(tmp_path):
    source = tmp_path / "game.json"
    cases = mutants(DATA / "textworld" / "tw_small.json")
    assert len(cases) > 2000
    for at, wrong, doc in cases:
        source.write_text(json.dumps(doc))
        try:
            convert(load_game(source))
        except TextWorldError as exc:
            assert "\n" not in str(exc), (at, wrong)


@pytest.mark.parametrize("nesting", [DEEP, SHALLOWER], ids=["deep", "shallower"])
@pytest.mark.parametrize("importer", ["textworld", "labyrinth", "clembench"])
def test_deep_nesting_in_an_imported_file_is_one_line(tmp_path, importer, nesting):
    source = tmp_path / "in.json"
    key = {"textworld": "world", "labyrinth": "npcs", "clembench": "experiments"}[importer]
    source.write_text(f'{{"{key}": {nesting}}}')
    out = adventure("import", importer, str(source), "--out", str(tmp_path / "out"))
    assert out.returncode == 1 and "Traceback" not in out.stderr
    assert "nested more than 64 levels deep" in out.stderr and len(out.stderr.splitlines()) == 1


@pytest.mark.parametrize("scene, field", [
    ({"npcs": [1], "environment": {}}, '"npcs" is an object'),
    ({"npcs": {}, "environment": ["lamp"]}, '"environment" is an object'),
    ({"scene": {"npcs": {}}, "players": [{"inventory": ["rope"]}]}, '"inventory" is an object'),
    ({"scene": {"npcs": {}}, "players": 3}, '"players" is a list'),
])
def test_a_labyrinth_list_where_a_mapping_belongs_is_named(tmp_path, scene, field):
    source = tmp_path / "scene.json"
    source.write_text(json.dumps(scene))
    out = adventure("import", "labyrinth", str(source), "--out", str(tmp_path / "w.yaml"))
    assert out.returncode == 1 and field in out.stderr and len(out.stderr.splitlines()) == 1


def test_a_clembench_instance_cannot_name_definitions_outside_its_folder(tmp_path):
    source = tmp_path / "in" / "instances.json"
    source.parent.mkdir()
    source.write_text(json.dumps({"experiments": [{"name": "x", "game_instances": [
        {"game_id": 0, "entity_definitions": ["../../../../../../etc/hostname"]}]}]}))
    out = adventure("import", "clembench", str(source), "--out", str(tmp_path / "out"))
    assert out.returncode == 1 and "not a plain file name" in out.stderr and "Traceback" not in out.stderr
