"""The engine writes, its callers read: no code outside engine/ assigns a field of an engine object.

Read from the source: an assignment to ``x.field`` (or ``x.field[...]``) outside ``engine/``, where ``x``
is named as an engine object is everywhere in the package (a game, world, state, style, parser, action,
scene, planner, a known turn ``rec``, or an object's ``.game``/``.world``/``.state``...), is reported.
"""

import pytest
import ast

from conftest import ROOT

ENGINE_NAMES = {"game", "g", "world", "w", "state", "st", "style", "parser", "action", "rec", "later", "scene",
                "planner", "tracker"}


def _engine_object(node) -> bool:
    while isinstance(node, ast.Subscript):
        node = node.value
    if isinstance(node, ast.Name):
        return node.id in ENGINE_NAMES
    if isinstance(node, ast.Attribute):
        return node.attr in ENGINE_NAMES - {"g", "w", "rec"}
    return False


def _writes(tree):
    for node in ast.walk(tree):
        targets = []
        if isinstance(node, ast.Assign):
            targets = node.targets
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
            targets = [node.target]
        for t in targets:
            for leaf in ast.walk(t):
                if isinstance(leaf, ast.Attribute) and isinstance(leaf.ctx, ast.Store) and _engine_object(leaf.value):
                    yield leaf.lineno, ast.unparse(leaf)
                elif isinstance(leaf, ast.Subscript) and isinstance(leaf.ctx, ast.Store) and \
                        isinstance(leaf.value, ast.Name) and leaf.value.id in ("rec", "record"):
                    yield leaf.lineno, ast.unparse(leaf)


@pytest.mark.slow
def test_nothing_outside_the_engine_assigns_an_engine_objects_field():
    package = ROOT / "tui_adventure"
    found = []
    for path in sorted(package.rglob("*.py")):
        if (package / "engine") in path.parents:
            continue
        for line, target in _writes(ast.parse(path.read_text(encoding="utf-8"))):
            found.append(f"{path.relative_to(ROOT)}:{line} {target}")
    assert not found, "\n".join(found)
