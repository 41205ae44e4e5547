"""Tool schemas for the ``tool`` and ``tools`` modes, and tool calls turned back into commands.

Whatever the mode, the engine and the records see a command typed the way a
person would type it (``take brass key``): a tool call is rewritten into that
before the episode judges it. So transcripts, scores and the parser's
failures mean the same in every mode, and a mode is only a different way
for the model to say the same thing.

Schemas are neutral ``{"name", "description", "parameters"}`` dicts (JSON
Schema parameters); each backend wraps them the way its API wants.
"""

from __future__ import annotations

import html
import json
import re

from ..engine.sources import parse_json
from .prompting import object_names

MODES = ("text", "tool", "tools")

# clembench's actions have no syntax patterns (its grammar is upstream's): their shapes, from docs/clembench/ADVENTUREGAME.md 3
_CLEM_OPTIONAL = {("take", "s")}
_CLEM_ARG_TEXT = {"e": "the thing", "s": "where to take it from (optional)", "t": "where to put it",
                  "d": "the room to go to"}


def _slots(pattern: str) -> list[str]:
    return re.findall(r"\{(\w+)\}", pattern)


def _pattern(action) -> str | None:
    syntax = action.spec.syntax
    if not syntax:
        return None
    want = set(action.spec.params)
    return next((s for s in syntax if set(_slots(s)) == want), syntax[0])


def directions(world) -> list[str]:
    out: list[str] = []
    for f in world.initial_facts:
        if f[0] == "exit" and len(f) == 4 and f[2] not in out:
            out.append(f[2])
    return out


def enums(world) -> dict[str, list[str]]:
    """Allowed values per parameter kind: the names of the world's objects, rooms, directions."""
    names = object_names(world)
    things = [names[e.id] for e in world.entities.values() if e.id in names and e.kind == "object"]
    rooms = [names[e.id] for e in world.entities.values() if e.id in names and e.kind == "room"]
    return {"thing": sorted(set(things), key=things.index), "room": sorted(set(rooms), key=rooms.index),
            "dir": directions(world)}


def tool_specs(world, mode: str, planning: bool = False) -> list[dict]:
    if mode == "text":
        return []
    if mode == "tool":
        props: dict = {"command": {"type": "string",
                                   "description": "One game command, e.g. 'take key' or 'go north'."}}
        if planning:
            props["next_actions"] = {"type": "array", "items": {"type": "string"},
                                     "description": "The commands you plan to give next, in order."}
        return [{"name": "act", "description": "Do one thing in the game: the command is played as if typed.",
                 "parameters": {"type": "object", "properties": props, "required": ["command"]}}]
    if mode != "tools":
        raise ValueError(f"unknown mode {mode!r} (use {', '.join(MODES)})")
    values = enums(world)
    clem = world.is_clembench()
    out = []
    for action in world.actions:
        props = {}
        required = []
        pattern = _pattern(action)
        for slot, kind in action.spec.params.items():
            schema: dict = {"type": "string"}
            if values.get(kind):
                schema["enum"] = values[kind]
            if clem:
                schema["description"] = _CLEM_ARG_TEXT.get(slot, slot)
            else:
                schema["description"] = {"thing": "the name of a thing", "room": "the name of a room",
                                         "dir": "a direction"}.get(kind, kind)
            props[slot] = schema
            if not (clem and (action.id, slot) in _CLEM_OPTIONAL):
                required.append(slot)
        if pattern:
            shape = re.sub(r"\{(\w+)\}", r"<\1>", " ".join(w.split("|")[0] for w in pattern.split()))
            also = [s for s in action.spec.syntax[1:4] if not _slots(s)]
            desc = f"The command '{shape}'." + (f" (Also typed: {', '.join(also)}.)" if also else "")
        else:
            desc = {"take": "Take a thing (from where it is, or from the thing given).",
                    "put": "Put a thing in or on another.", "go": "Go to a neighbouring room.",
                    "open": "Open a thing.", "close": "Close a thing.", "examine": "Look closely at a thing.",
                    "done": "End the game: you consider yourself done."}.get(action.id, action.id)
        out.append({"name": action.id, "description": desc,
                    "parameters": {"type": "object", "properties": props, "required": required}})
    return out


def read_arguments(text: str) -> tuple[dict | str, str]:
    """(the arguments, the JSON text to send back) of a tool call as the model wrote it.

    A chat format that HTML-escapes (llama-cpp-python's chatml-function-calling) has the model write
    ``&#34;`` for a quote inside a JSON string: the JSON is parsed first, then its values unescaped;
    unescaping first would turn those quotes into JSON's own and break it. What goes back in the
    history is JSON again (a strict server parses it), with the escapes gone so they do not compound.
    Arguments that are no JSON object go back as a JSON string of what the model wrote."""
    candidates = (text, html.unescape(text)) if "&" in text else (text,)
    for candidate in candidates:
        try:   # bounded: deep nesting is RecursionError in Python's parser (and in _unescaped)
            value = parse_json(candidate or "{}")
        except ValueError:
            continue
        if isinstance(value, dict):
            value = _unescaped(value)
            return value, json.dumps(value, ensure_ascii=False)
        break
    salvaged = salvage_arguments(text)
    if salvaged:
        return salvaged, json.dumps(salvaged, ensure_ascii=False)
    plain = html.unescape(text) if "&" in text else text
    return plain, json.dumps(plain, ensure_ascii=False)


# a key and the start of its string value: "command": "
_STRING_KEY = re.compile(r'"(\w+)"\s*:\s*"')
# where a string value ends: a quote followed by the next key, the object's end or the text's end
_VALUE_END = re.compile(r'"(?=\s*(?:,\s*"\w+"\s*:|}|$))')
_JSON_ESCAPE = re.compile(r'\\(u[0-9a-fA-F]{4}|["\\/bfnrt])')
_SIMPLE = {'"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}


def salvage_arguments(text: str) -> dict | None:
    """The string values of arguments that are almost JSON, or None.

    A small model writes a quote it does not escape, or is cut off by its token limit inside the
    value (``{"command": "take the "red" key"``, ``{"command": "open door``): what it meant is
    still plain to read, and the whole text played as a command would be JSON the game cannot
    know. A value ends at a quote before the next key or the end; unterminated, at the line's end."""
    found = {}
    for match in _STRING_KEY.finditer(text):
        if match.group(1) in found:
            continue
        rest = text[match.end():]
        end = _VALUE_END.search(rest.split("\n", 1)[0] if "\n" in rest else rest)
        if end is not None:
            value = rest[:end.start()]
        else:   # cut off: the line, without a closing brace the model wrote without its quote
            value = re.sub(r'"?\s*}?\s*$', "", rest.split("\n", 1)[0])
        value = _JSON_ESCAPE.sub(lambda m: chr(int(m.group(1)[1:], 16)) if m.group(1)[0] == "u"
                                 else _SIMPLE[m.group(1)], value)
        found[match.group(1)] = _unescaped(value).strip()
    return found or None


def _unescaped(value):
    if isinstance(value, str):
        return html.unescape(value) if "&" in value else value
    if isinstance(value, list):
        return [_unescaped(v) for v in value]
    if isinstance(value, dict):
        return {_unescaped(k): _unescaped(v) for k, v in value.items()}
    return value


def parse_arguments(arguments) -> dict | str:
    """A tool call's arguments as a dict; the raw text when it is not a JSON object (small models slip)."""
    if isinstance(arguments, dict):
        return arguments
    try:
        value = parse_json(arguments or "{}")
    except ValueError:
        return str(arguments)
    return value if isinstance(value, dict) else str(arguments)


def command_of(world, name: str, arguments) -> tuple[str, list[str]]:
    """(command, planned next commands) for one tool call, written as a person would type them;
    ``world`` None: a game whose one tool is ``act`` (a story file)."""
    args = parse_arguments(arguments)
    if name == "act":
        if isinstance(args, str):
            return args.strip(), []
        plan = args.get("next_actions") or []
        plan = [str(p) for p in plan] if isinstance(plan, list) else [str(plan)]
        return str(args.get("command", "")).strip(), plan
    if isinstance(args, str):
        args = {}
    action = world.action_by_id.get(name) if world is not None else None   # None: a game of act() alone
    if action is None:   # not one of ours: say it as the model named it, and let the parser judge
        return " ".join([name.replace("_", " "), *map(str, args.values())]).strip(), []
    val = {k: str(v).strip() for k, v in args.items() if v not in (None, "")}
    if world.is_clembench():
        return _clem_command(world, name, val), []
    pattern = _pattern(action)
    if pattern is None:
        return " ".join([name, *val.values()]), []
    words = []
    for word in pattern.split():
        slot = _slots(word)
        if slot:
            if slot[0] in val:
                words.append(word.replace("{" + slot[0] + "}", val[slot[0]]))
        else:
            words.append(word.split("|")[0])
    return " ".join(words), []


def _clem_command(world, name: str, val: dict) -> str:
    e, s, t, d = val.get("e", ""), val.get("s"), val.get("t", ""), val.get("d", "")
    if name == "take":
        return f"take {e} from {s}" if s else f"take {e}"
    if name == "put":
        containers = {f[1] for f in world.initial_facts if f[0] == "container"}
        ids = {n: i for i, n in object_names(world).items()}
        return f"put {e} {'in' if ids.get(t) in containers else 'on'} {t}"
    if name == "go":
        return f"go {d}"
    if name in ("open", "close", "examine"):
        return f"{name} {e}"
    return " ".join([name, *val.values()])
