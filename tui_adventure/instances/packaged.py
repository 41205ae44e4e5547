"""clembench's adventuregame data as it ships inside the package.

A user should be able to play, run and score the 128 upstream instances from
a plain install, with no clembench checkout beside it; the files are upstream's
own (see ``data/clembench/adventuregame/PROVENANCE.md``), read here once and
cached, so naming an instance costs one dictionary lookup after the first.
"""

from __future__ import annotations

import json
import re
from functools import lru_cache
from pathlib import Path

from ..engine.world import World
from ..engine.yamlpos import SourceError, SourceErrors, did_you_mean
from .convert import load_definitions, world_from_instance

HOME = Path(__file__).resolve().parent.parent / "data" / "clembench" / "adventuregame"
INSTANCES = HOME / "in" / "instances.json"
PREFIX = "clembench/"
_NAME_RE = re.compile(r"^clembench/([^/]+)/(?:instance_)?(\d+)$")


@lru_cache(maxsize=1)
def experiments() -> dict[str, dict[int, dict]]:
    """experiment name -> game_id -> upstream's instance dict, in upstream's order."""
    data = json.loads(INSTANCES.read_text(encoding="utf-8"))
    return {e["name"]: {int(i["game_id"]): i for i in e["game_instances"]} for e in data["experiments"]}


@lru_cache(maxsize=None)
def _names(entity_defs: tuple, room_defs: tuple) -> dict:
    return load_definitions(INSTANCES, {"entity_definitions": list(entity_defs) or ["home_entities.json"],
                                        "room_definitions": list(room_defs) or ["home_rooms.json"]})


def names_for(instance: dict) -> dict:
    """The surface names upstream's definition files give an instance's types."""
    return _names(tuple(instance.get("entity_definitions", ())), tuple(instance.get("room_definitions", ())))


def is_name(text: str) -> bool:
    return str(text).startswith(PREFIX)


def name_of(experiment: str, game_id: int) -> str:
    return f"{PREFIX}{experiment}/{game_id}"


def names(prefix: str = "clembench") -> list[str]:
    """Every packaged instance under ``clembench`` or ``clembench/<experiment>``, in upstream's order."""
    parts = prefix.rstrip("/").split("/")
    exps = experiments()
    if len(parts) == 1:
        chosen = list(exps)
    elif len(parts) == 2 and parts[1] in exps:
        chosen = [parts[1]]
    else:
        raise _unknown(prefix, "experiment", parts[1] if len(parts) > 1 else "", exps)
    return [name_of(e, g) for e in chosen for g in exps[e]]


def world(name: str) -> World:
    """The World of ``clembench/<experiment>/<game_id>`` (``instance_00003`` is read as 3 too)."""
    m = _NAME_RE.match(str(name))
    exps = experiments()
    if not m:
        raise SourceErrors([SourceError(str(name), None, "a packaged clembench instance is named "
                                        "clembench/<experiment>/<game_id>, e.g. clembench/home_deliver_three_basic_easy/0"
                                        " (adventure list shows them)")])
    experiment, game_id = m.group(1), int(m.group(2))
    if experiment not in exps:
        raise _unknown(name, "experiment", experiment, exps)
    if game_id not in exps[experiment]:
        ids = sorted(exps[experiment])
        raise SourceErrors([SourceError(str(name), None, f"{experiment} has no instance {game_id}:"
                                        f" its game ids are {ids[0]}-{ids[-1]}")])
    inst = exps[experiment][game_id]
    w = world_from_instance(inst, experiment, names_for(inst), path=name_of(experiment, game_id))
    w.meta["packaged"] = name_of(experiment, game_id)
    return w


def _unknown(name: str, what: str, word: str, options) -> SourceErrors:
    return SourceErrors([SourceError(str(name), None, f"no packaged clembench {what} {word!r}"
                                     f"{did_you_mean(word, options)} (adventure list shows them)")])
