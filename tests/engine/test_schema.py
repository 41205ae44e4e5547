"""worlds/world.schema.json: valid, in step with the loader, and right about real and broken worlds."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator

from tui_adventure.engine.loading import loader
from tui_adventure.engine.rules import ruleset, world_actions
from tui_adventure.engine.yamlpos import load_yaml

from conftest import ROOT
SCHEMA = json.loads((ROOT / "worlds" / "world.schema.json").read_text(encoding="utf-8"))
VALIDATOR = Draft202012Validator(SCHEMA)
WORLDS = sorted((ROOT / "worlds").glob("*.yaml")) + sorted((ROOT / "tests" / "worlds").glob("*.yaml"))


def plain(value):
    """PosDict/PosList -> dict/list. (yaml.safe_load would read the key `on:` as True.)"""
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [plain(v) for v in value]
    return value


def load(path: Path):
    return plain(load_yaml(path.read_text(encoding="utf-8"), str(path)))


def problems(doc) -> list[str]:
    return [f"/{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in VALIDATOR.iter_errors(doc)]


def test_schema_is_valid_2020_12():
    Draft202012Validator.check_schema(SCHEMA)
    assert SCHEMA["$schema"] == "https://json-schema.org/draft/2020-12/schema"


def test_schema_knows_every_key_the_loader_knows():
    assert set(SCHEMA["properties"]) == loader.TOP_KEYS
    assert set(SCHEMA["$defs"]["room"]["properties"]) == loader.ROOM_KEYS
    assert set(SCHEMA["$defs"]["object"]["properties"]) == loader.OBJECT_KEYS
    assert set(SCHEMA["$defs"]["trait"]["enum"]) == world_actions.TRAITS
    assert set(SCHEMA["$defs"]["action"]["properties"]) == set(world_actions.ACTION_SHAPES) == ruleset.ACTION_KEYS
    assert set(SCHEMA["$defs"]["id"]["not"]["enum"]) == loader.RESERVED
    assert SCHEMA["$defs"]["id"]["pattern"] == loader.ID_RE.pattern


def test_the_example_in_the_docs_is_valid():
    doc = (ROOT / "docs" / "worlds.md").read_text(encoding="utf-8")
    example = re.search(r"```yaml\n(.*?)```", doc, re.S).group(1)
    assert problems(plain(load_yaml(example, "docs/worlds.md"))) == []


@pytest.mark.parametrize("path", WORLDS, ids=[f"{p.parent.name}/{p.stem}" for p in WORLDS])
def test_worlds_match_the_schema(path: Path):
    assert problems(load(path)) == []


# Broken worlds whose mistake is one of form, which the schema sees too.
SCHEMA_SEES = ["unknown_top_key", "unknown_room_key", "unknown_object_key", "unknown_trait", "missing_rooms",
               "missing_start", "missing_goal", "max_turns_text", "par_negative", "name_list", "invalid_id",
               "reserved_id", "two_locations", "no_location", "held_false", "open_not_boolean", "exit_unknown_key",
               "exit_door_without_to", "rooms_list", "room_not_mapping", "goal_empty", "door_with_location",
               "key_not_lockable", "traits_comma_text", "title_list", "action_bad_shape", "three_mistakes",
               "bad_exit_name", "exit_to_nowhere"]


@pytest.mark.parametrize("name", SCHEMA_SEES)
def test_broken_worlds_fail_the_schema(name: str):
    assert problems(load(ROOT / "tests" / "broken" / f"{name}.yaml")), f"{name} passes the schema"


def test_on_is_a_key_not_a_boolean():
    doc = plain(load_yaml("start: hall\nrooms: {hall: {}}\nobjects:\n  table: {traits: [support], at: hall}\n"
                          "  book: {traits: [takeable], on: table}\ngoal: [held(book)]\n", "t.yaml"))
    assert "on" in doc["objects"]["book"] and problems(doc) == []
