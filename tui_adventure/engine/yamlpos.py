"""YAML loading that remembers where every value came from.

World and ruleset authors need ``file:line:col`` in every error, so mappings
and sequences are loaded as ``PosDict``/``PosList`` that carry the position of
the node and of each key and item. Scalars keep their plain Python types; their
positions live in the parent (``pos_of``). Loading is as safe as
``yaml.safe_load``: no tags that build Python objects.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass
from typing import Any

import yaml


@dataclass(frozen=True)
class Pos:
    line: int  # 1-based
    col: int   # 1-based


class _Lazy:
    """Positions and weights worked out from the YAML node when first asked for: a world's loader
    asks for a handful (the places of its mistakes)."""

    _node: Any        # the YAML node it was loaded from, until pickled (an instance attribute only)
    _LAZY: dict       # attribute name -> make(self, node), its value

    def __getattr__(self, name: str):
        node = self.__dict__.get("_node")
        make = self._LAZY.get(name) if node is not None else None
        if make is None:
            raise AttributeError(name)
        value = make(self, node)
        setattr(self, name, value)
        return value

    def __getstate__(self) -> dict:   # a copy or a pickle carries positions, not the node tree
        for name in self._LAZY:
            getattr(self, name, None)
        return {k: v for k, v in self.__dict__.items() if k != "_node"}


def _weight(values) -> int:
    return 1 + sum(getattr(v, "weight", 1) for v in values)


class PosDict(_Lazy, dict):
    pos: Pos | None
    key_pos: dict
    value_pos: dict
    weight: int   # values in it, counting every alias again: what walking it costs
    _LAZY = {"pos": lambda self, node: _pos(node.start_mark),
             "key_pos": lambda self, node: {k.value: _pos(k.start_mark) for k, _v in node.value},
             "value_pos": lambda self, node: {k.value: _pos(v.start_mark) for k, v in node.value},
             "weight": lambda self, node: _weight(self.values())}


class PosList(_Lazy, list):
    pos: Pos | None
    item_pos: list
    weight: int
    _LAZY = {"pos": lambda self, node: _pos(node.start_mark),
             "item_pos": lambda self, node: [_pos(n.start_mark) for n in node.value],
             "weight": lambda self, node: _weight(self)}


MESSAGE_LIMIT = 1_000


class SourceError(Exception):
    """An author's mistake: where it is, what is wrong, how to fix it."""

    def __init__(self, path: str, pos: Pos | None, message: str) -> None:
        if len(message) > MESSAGE_LIMIT:   # a huge value quoted back helps nobody and can exhaust memory
            message = f"{message[:MESSAGE_LIMIT // 2]} [... {len(message) - MESSAGE_LIMIT:,} characters left out ...]" \
                      f" {message[-MESSAGE_LIMIT // 2:]}"
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


# libyaml's parser when PyYAML has it ; marks work the same.
_Base: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)   # Any: PyYAML ships no type stubs


# Anchors and aliases share one object between many places; walking such a value (a repr in an
# error message, a JSON dump into the records) visits every share. Past this many values reached
# through aliases a file is refused, so a few hundred bytes cannot expand into gigabytes.
ALIAS_LIMIT = 10_000


class _Loader(_Base):
    def __init__(self, stream) -> None:
        super().__init__(stream)
        self.alias_weight = 0

    def resolve(self, kind, value, implicit):
        """PyYAML's tag for a node, remembered for short plain scalars: the composer asks for every
        node, and a batch's worlds repeat the same names thousands of times."""
        if kind is not yaml.ScalarNode or not implicit[0] or len(value) > 40:
            return super().resolve(kind, value, implicit)
        tag = _TAGS.get(value)
        if tag is None:
            if len(_TAGS) > 50_000:
                _TAGS.clear()
            tag = _TAGS[value] = super().resolve(kind, value, implicit)
        return tag

    def construct_object(self, node, deep=False):
        if isinstance(node, yaml.CollectionNode) and node in self.constructed_objects:
            self.alias_weight += getattr(self.constructed_objects[node], "weight", 1)
            if self.alias_weight > ALIAS_LIMIT:
                raise yaml.constructor.ConstructorError(
                    None, None, f"anchors and aliases (&name, *name) here expand to more than {ALIAS_LIMIT:,}"
                    " values; write the values out instead", node.start_mark)
        return super().construct_object(node, deep)


def _construct_mapping(loader: _Loader, node: yaml.MappingNode) -> PosDict:
    out = PosDict()
    out._node = node
    loader.flatten_mapping(node)
    for key_node, value_node in node.value:
        if type(key_node) is not yaml.ScalarNode:
            raise yaml.constructor.ConstructorError(
                None, None, "a key must be a plain word", key_node.start_mark)
        # Keys are taken as written: YAML 1.1 would read `on:` or `no:` as booleans.
        key = key_node.value
        if key in out:
            first = next(k for k, _v in node.value if k.value == key)
            raise yaml.constructor.ConstructorError(
                None, None, f"duplicate key {key!r} (each key may appear once here; "
                f"the first is at line {first.start_mark.line + 1})", key_node.start_mark)
        out[key] = _child(loader, value_node)
    return out


def _construct_sequence(loader: _Loader, node: yaml.SequenceNode) -> PosList:
    out = PosList([_child(loader, n) for n in node.value])
    out._node = node
    return out


def _child(loader: _Loader, node):
    """A value: a plain scalar straight from its constructor (what construct_object would call,
    less its bookkeeping for collections and anchors), anything else through construct_object."""
    if type(node) is yaml.ScalarNode:
        if node.tag == _STR:   # construct_yaml_str's answer, without its three calls
            return node.value
        make = _SCALARS.get(node.tag)
        if make is not None:
            return make(loader, node)
    return loader.construct_object(node, deep=True)


_TAGS: dict = {}   # a short plain scalar -> its tag (_Loader.resolve)
_STR = "tag:yaml.org,2002:str"
_SCALARS = {tag: make for tag, make in _Loader.yaml_constructors.items()
            if tag and tag.split(":")[-1] in ("null", "bool", "int", "float", "str", "timestamp")}

_Loader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)
_Loader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_SEQUENCE_TAG, _construct_sequence)


DEPTH_LIMIT = 200


def _depth_bound(text: str) -> int:
    """An upper bound on the nesting, without parsing (the event parse costs as much as the load).
    A block collection inside another starts at a greater column, except a sequence that is a
    mapping's value, which may share its key's column: at most two levels per column. A block
    collection begins in a line's leading run of blanks, ``-`` and ``?`` (libyaml refuses one
    after a key, an anchor or a tag on the same line), so the longest run bounds them; flow
    collections nest only as deep as there are brackets."""
    widest = max(map(len, _LEADING.findall(text)), default=0)
    return 2 * (widest + 1) + text.count("[") + text.count("{") + 1


_LEADING = re.compile(r"^[ \t?-]*", re.M)


def _check_depth(text: str, path: str) -> None:
    """Refuse nesting deeper than DEPTH_LIMIT before building anything: libyaml composes nodes
    recursively in C, and a 100,000-deep ``[[[...]]]`` overflows the C stack (a crash, not an error).
    The event parser keeps its own stack, so it can measure the depth safely; it only runs when the
    text has enough openers to be deep at all, or columns wide enough to indent that deep."""
    if sum(text.count(s) for s in ("[", "{", "- ", ": ", "? ")) < DEPTH_LIMIT:
        return
    if _depth_bound(text) < DEPTH_LIMIT:
        return
    depth = 0
    starts = (yaml.MappingStartEvent, yaml.SequenceStartEvent)
    ends = (yaml.MappingEndEvent, yaml.SequenceEndEvent)
    try:
        for event in yaml.parse(text, Loader=_Base):
            if isinstance(event, starts):
                depth += 1
                if depth > DEPTH_LIMIT:
                    raise SourceError(path, _pos(event.start_mark), "the YAML is nested too deeply here (more than"
                                      f" {DEPTH_LIMIT} levels; a world needs a handful: flatten it)")
            elif isinstance(event, ends):
                depth -= 1
    except yaml.YAMLError:
        return   # a syntax error: the real parse below reports it with its position


def load_yaml(text: str, path: str):
    """Parse YAML text; a syntax error becomes a SourceError at its line and column."""
    try:
        _check_depth(text, path)
        return yaml.load(text, Loader=_Loader)  # noqa: S506 - _Loader derives from SafeLoader
    except yaml.MarkedYAMLError as exc:
        raise _syntax_error(exc, text, path) from None
    except yaml.reader.ReaderError as exc:
        before = text[:exc.position]
        pos = Pos(before.count("\n") + 1, len(before) - before.rfind("\n"))
        ch = exc.character if isinstance(exc.character, int) else ord(str(exc.character)[:1] or "\0")
        raise SourceError(path, pos, f"the control character U+{ch:04X} is not allowed in YAML (remove it)") from None
    except yaml.YAMLError as exc:
        raise SourceError(path, None, f"YAML error: {' '.join(str(exc).split())} (check the file's syntax)") from None
    except RecursionError:
        raise SourceError(path, None, "the YAML is nested too deeply (flatten it)") from None
    except (ValueError, TypeError) as exc:   # e.g. a date or number the constructor cannot build
        raise SourceError(path, None, f"YAML value cannot be read ({exc}); put it in quotes") from None


def _syntax_error(exc, text: str, path: str) -> SourceError:
    mark = exc.problem_mark or exc.context_mark
    problem = (exc.problem or "invalid YAML").strip()
    context = (exc.context or "").strip()
    lines = text.splitlines()
    # libyaml and PyYAML word their problems differently; the source text tells more.
    if mark is not None and 0 <= mark.line < len(lines) and "\t" in lines[mark.line][:mark.column + 1]:
        line = lines[mark.line]
        col = line.index("\t")
        return SourceError(path, Pos(mark.line + 1, col + 1),
                           "YAML syntax error: a tab character (YAML indents with spaces, never tabs: replace it with spaces)")
    if "quoted scalar" in context and exc.context_mark is not None:
        return SourceError(path, _pos(exc.context_mark),
                           "YAML syntax error: this quote is never closed (add the closing quote"
                           " at the end of the text)")
    if "nesting depth" in problem:   # PyYAML 6.0.3 and later have a depth limit of their own
        return SourceError(path, _pos(mark) if mark else None, "the YAML is nested too deeply here (more than"
                           f" {DEPTH_LIMIT} levels; a world needs a handful: flatten it)")
    if "constructor" in problem and "tag" in problem:
        return SourceError(path, _pos(mark) if mark else None,
                           f"YAML syntax error: {problem} (tags such as !!python/... are not allowed in world files;"
                           " remove the tag)")
    return SourceError(path, _pos(mark) if mark else None, f"YAML syntax error: {problem}{_hint(problem, context)}")


def _hint(problem: str, context: str = "") -> str:
    if "mapping values are not allowed" in problem:
        return " (a value containing ': ' needs quotes, or a key is indented wrongly)"
    if "could not find expected ':'" in problem or "simple key" in problem or "simple key" in context:
        return " (a key is missing its ':' or a quote is not closed)"
    if "expected key" in problem or "block end" in problem or "block mapping" in context:
        return " (check the indentation of this line: the keys of one mapping must line up)"
    if "duplicate key" in problem:
        return ""
    if "expand to more than" in problem:
        return ""
    if "alias" in problem or "anchor" in problem:
        return " (a * or & starts an alias or an anchor; put the text in quotes)"
    if "expected ','" in problem or "flow" in problem or "flow" in context:
        return " (a [list] or {mapping} is not closed or a comma is missing; quote texts with ',', '[' or '{')"
    if "cannot start any token" in problem:
        return " (characters like @ ` % must not start a value; put the text in quotes)"
    if "end of stream" in problem:
        return " (something opened above is never closed: a quote, a bracket or a brace)"
    return " (check the YAML syntax here; quote texts that contain special characters)"


def pos_of(container, key) -> Pos | None:
    """Where the value at ``key`` (a dict key or list index) starts, when known."""
    if isinstance(container, PosDict):
        return container.value_pos.get(key, getattr(container, "pos", None))
    if isinstance(container, PosList):
        if isinstance(key, int) and 0 <= key < len(container.item_pos):
            return container.item_pos[key]
        return getattr(container, "pos", None)
    return None


def start_of(container) -> Pos | None:
    """Where a mapping or list read from a file starts, when known (None for one built in code)."""
    if isinstance(container, (PosDict, PosList)):
        return container.pos
    return None


def key_pos_of(container, key) -> Pos | None:
    if isinstance(container, PosDict):
        return container.key_pos.get(key, getattr(container, "pos", None))
    return getattr(container, "pos", None)


def did_you_mean(word, options, cutoff: float = 0.6) -> str:
    if not isinstance(word, str):
        return ""
    close = difflib.get_close_matches(word, sorted(str(o) for o in options), n=1, cutoff=cutoff)
    return f"; did you mean {close[0]!r}?" if close else ""


def _kind(value) -> str:
    for kind, name in ((bool, "true/false"), (dict, "mapping"), (list, "list"), (str, "text"),
                       (int, "number"), (float, "number")):
        if isinstance(value, kind):
            return name
    return "nothing" if value is None else type(value).__name__
