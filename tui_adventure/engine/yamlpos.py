"""YAML loading that remembers where every value came from.

World and ruleset authors need ``file:line:col`` in every error, so mappings
and sequences are loaded as ``PosDict``/``PosList`` that carry the position of
the node and of each key and item. Scalars keep their plain Python types; their
positions live in the parent (``pos_of``). Loading is as safe as
``yaml.safe_load``: no tags that build Python objects.
"""

from __future__ import annotations

from dataclasses import dataclass

import yaml


@dataclass(frozen=True)
class Pos:
    line: int  # 1-based
    col: int   # 1-based


class PosDict(dict):
    pos: Pos
    key_pos: dict
    value_pos: dict


class PosList(list):
    pos: Pos
    item_pos: list


class SourceError(Exception):
    """An author's mistake: where it is, what is wrong, how to fix it."""

    def __init__(self, path: str, pos: Pos | None, message: str) -> None:
        self.path = path
        self.pos = pos
        self.message = message
        super().__init__(str(self))

    def __str__(self) -> str:
        if self.pos is None:
            return f"{self.path}: {self.message}"
        return f"{self.path}:{self.pos.line}:{self.pos.col}: {self.message}"


class SourceErrors(Exception):
    """Every mistake found in one file, so an author fixes them in one go."""

    def __init__(self, errors: list[SourceError]) -> None:
        self.errors = errors
        super().__init__("\n".join(str(e) for e in errors))


def _pos(mark) -> Pos:
    return Pos(mark.line + 1, mark.column + 1)


class _Loader(yaml.SafeLoader):
    pass


def _construct_mapping(loader: _Loader, node: yaml.MappingNode) -> PosDict:
    out = PosDict()
    out.pos = _pos(node.start_mark)
    out.key_pos = {}
    out.value_pos = {}
    loader.flatten_mapping(node)
    for key_node, value_node in node.value:
        if not isinstance(key_node, yaml.ScalarNode):
            raise yaml.constructor.ConstructorError(
                None, None, "a key must be a plain word", key_node.start_mark)
        # Keys are taken as written: YAML 1.1 would read `on:` or `no:` as booleans.
        key = key_node.value
        if key in out:
            raise yaml.constructor.ConstructorError(
                None, None, f"duplicate key {key!r} (each key may appear once here; "
                f"the first is at line {out.key_pos[key].line})", key_node.start_mark)
        out[key] = loader.construct_object(value_node, deep=True)
        out.key_pos[key] = _pos(key_node.start_mark)
        out.value_pos[key] = _pos(value_node.start_mark)
    return out


def _construct_sequence(loader: _Loader, node: yaml.SequenceNode) -> PosList:
    out = PosList(loader.construct_object(n, deep=True) for n in node.value)
    out.pos = _pos(node.start_mark)
    out.item_pos = [_pos(n.start_mark) for n in node.value]
    return out


_Loader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)
_Loader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_SEQUENCE_TAG, _construct_sequence)


def load_yaml(text: str, path: str):
    """Parse YAML text; a syntax error becomes a SourceError at its line and column."""
    try:
        return yaml.load(text, Loader=_Loader)  # noqa: S506 - _Loader derives from SafeLoader
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        problem = exc.problem or "invalid YAML"
        hint = _hint(problem)
        raise SourceError(path, _pos(mark) if mark else None,
                          f"YAML syntax error: {problem}{hint}") from None
    except yaml.YAMLError as exc:
        raise SourceError(path, None, f"YAML error: {exc}") from None


def _hint(problem: str) -> str:
    if "mapping values are not allowed" in problem:
        return " (a value containing ': ' needs quotes, or a key is indented wrongly)"
    if "found character '\\t'" in problem:
        return " (YAML indents with spaces, never tabs)"
    if "could not find expected ':'" in problem:
        return " (a key is missing its ':' or a quote is not closed)"
    if "duplicate key" in problem:
        return ""
    return ""


def pos_of(container, key) -> Pos | None:
    """Where the value at ``key`` (a dict key or list index) starts, when known."""
    if isinstance(container, PosDict):
        return container.value_pos.get(key, getattr(container, "pos", None))
    if isinstance(container, PosList):
        if isinstance(key, int) and 0 <= key < len(container.item_pos):
            return container.item_pos[key]
        return getattr(container, "pos", None)
    return None


def key_pos_of(container, key) -> Pos | None:
    if isinstance(container, PosDict):
        return container.key_pos.get(key, getattr(container, "pos", None))
    return getattr(container, "pos", None)
