"""What a WORLD argument names: a file, a packaged native world, a packaged clembench instance, or a
Z-machine story file (``zmachine``; played through the one game interface, ``games``).

Every front end (play, repl, run, check, solve, script, replay) resolves its
arguments here, so ``house`` or ``clembench/home_deliver_three_basic_easy/0``
mean the same thing to all of them and an unknown name gets one message.
A path that exists always wins over a packaged name.
"""

from __future__ import annotations

from pathlib import Path

from .instances import packaged
from .instances.convert import load_world_file as load_world
from .engine.world import World
from .engine.yamlpos import SourceError, SourceErrors, did_you_mean
from .engine.text import plural
from .zmachine.game import StorySource, open_story
from .zmachine.story import is_story_path

NATIVE = Path(__file__).resolve().parent / "data" / "worlds"


def native_worlds() -> dict[str, Path]:
    """name -> file of the worlds that ship with the package (``house``, ``manor``, ...)."""
    return {p.stem: p for p in sorted(NATIVE.glob("*.yaml"))}


def is_story(arg: str | Path) -> bool:
    """The argument names a Z-machine story file (.z1-.z8, .zblorb, .blorb), by its suffix."""
    return is_story_path(arg)


def open_world(arg: str | Path, max_turns: int | None = None) -> World | StorySource:
    """The World an argument names, or for a story file its ``zmachine.game.StorySource`` (checked, and
    Jericho there); ``SourceErrors`` (printable as ``file: message``) if none. ``max_turns``: a story
    file's turn limit (our worlds state their own)."""
    if is_story_path(str(arg)):
        story = open_story(Path(str(arg)))
        if max_turns is not None:
            story.max_turns = max_turns
        return story
    return our_world(arg)


def our_world(arg: str | Path) -> World:
    """The World an argument names, for what only our engine does (check, solve, export): as
    ``open_world``, but a story file is refused with ``SourceErrors`` of one line."""
    text = str(arg)
    path = Path(text)
    if is_story_path(text):
        raise SourceErrors([SourceError(text, None, "a Z-machine story file, not one of our worlds: only our"
                                                    " worlds (YAML files, packaged names) can be used here")])
    if path.exists() or path.suffix in (".yaml", ".yml") or "/" in text and not packaged.is_name(text):
        return load_world(path)
    if packaged.is_name(text):
        return packaged.world(text)
    native = native_worlds()
    if text in native:
        return load_world(native[text])
    options = list(native) + ["clembench/<experiment>/<game_id>"]
    raise SourceErrors([SourceError(text, None, f"no such file, and no packaged world of that name"
                                    f"{did_you_mean(text, native)}; adventure list shows the packaged ones"
                                    f" ({', '.join(options)})")])


def expand(args: list[str]) -> list[str]:
    """The worlds a batch plays: folders become their ``*.yaml`` files and story files, ``clembench`` all 128
    packaged instances and ``clembench/<experiment>`` its 16; anything else stays as given."""
    out: list[str] = []
    for arg in args:
        path = Path(arg)
        if path.is_dir():
            out.extend(str(p) for p in sorted(path.rglob("*")) if p.suffix == ".yaml" or is_story_path(p))
        elif not path.exists() and (arg.rstrip("/") == "clembench" or
                                    packaged.is_name(arg) and arg.rstrip("/").count("/") == 1):
            out.extend(packaged.names(arg))
        else:
            out.append(arg)
    return out


def listing() -> str:
    """``adventure list``: what can be named without a path."""
    lines = ["Worlds that ship with tui-adventure (adventure play NAME):"]
    native = native_worlds()
    width = max(map(len, native), default=0)
    for name, path in native.items():
        try:
            w = load_world(path)
            about = f"{w.title} ({plural(len(w.rooms()), 'room')}, {plural(len(w.goals), 'goal')}, max {plural(w.max_turns, 'turn')})"
        except SourceErrors as exc:
            about = f"(broken: {exc.errors[0]})"
        lines.append(f"  {name:<{width}}  {about}")
    lines += ["", "clembench adventuregame v2.1, packaged (adventure play clembench/EXPERIMENT/GAME_ID;"
              " adventure run clembench/EXPERIMENT plays all of one):"]
    exps = packaged.experiments()
    width = max(len(packaged.PREFIX + e) for e in exps)
    for name, instances in exps.items():
        ids = sorted(instances)
        lines.append(f"  {packaged.PREFIX + name:<{width}}  {plural(len(ids), 'instance')}, game ids {ids[0]}-{ids[-1]}")
    total = sum(len(v) for v in exps.values())
    lines.append(f"  {plural(len(exps), 'experiment')}, {plural(total, 'instance')}")
    return "\n".join(lines)
