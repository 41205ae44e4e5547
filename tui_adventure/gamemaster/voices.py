"""Characters a model speaks for (``voice: MODEL`` in a world's ``characters:``).

The Labyrinth project asks whether function calling keeps a model game
master's state straight. Here a voiced character is that game master in
small: after a turn that names the character (talking to it, asking it,
giving it something) its model reads the character's persona and what the
player just did and saw, says a line, and may call the tools the world
declares for the character; nothing else it writes changes the world. Each
call is done by the engine (``Scene.call``: the tool's condition is checked
against the real state) and logged as a game-master event with its
arguments and result, ``character_call``, beside the line, ``character_said``.
So the records show where a model's idea of the world and the world parted.

The engine never waits for a model: the calls go through ``Game.scene_call``
as part of the turn that caused them, so undo takes both back. The planner
cannot foresee a model, so par assumes a cooperative voice (each tool called
as soon as the character is spoken to and the tool's condition holds;
``Scene.cooperative_voices``), and ``solve`` says so.
"""

from __future__ import annotations

import asyncio

from ..engine.scenes import SPOKEN_TO
from ..engine.sources import parse_json
from ..players.backends import BACKENDS
from ..players.backends.completion import ModelError, Transient
from ..players.registry import ModelSpec, resolve
from ..engine.text import plural

HISTORY = 12                          # the character's own exchanges kept in its prompt (bounded)


def voiced(world) -> list:
    scene = world.scene
    return [c for c in scene.spec.characters.values() if c.voice] if scene is not None else []


class Voice:
    """One character's model and its own memory of the episode."""

    def __init__(self, world, character, spec: ModelSpec) -> None:
        self.world = world
        self.character = character
        self.spec = spec
        self.history: list[dict] = []
        self.tools = [{"name": h.id, "description": h.description or h.id.replace("_", " "),
                       "parameters": {"type": "object", "properties": {}}}
                      for h in world.scene.tools_of(character.id)]

    def system(self) -> str:
        c, name = self.character, self.world.name_of(self.character.id)
        parts = [f"You are {name}, a character in a text adventure. Stay in character.",
                 *c.persona, f"Your goal: {c.goal}" if c.goal else "",
                 f"Traits: {', '.join(c.traits)}." if c.traits else "",
                 f"Flaws: {', '.join(c.flaws)}." if c.flaws else "",
                 "Answer with what you say, one or two short lines, nothing else.",
                 "You can change the world only by calling one of your tools, and only when you mean it;"
                 " a tool whose condition does not hold does nothing." if self.tools else
                 "You cannot change the world, only speak."]
        return "\n".join(p for p in parts if p)

    def prompt(self, who: str, command: str, seen: str) -> str:
        return f"{who} (a player) just did: {command}\nWhat they saw:\n{seen}\n\nWhat do you say?"

    async def ask(self, who: str, command: str, seen: str):
        """The model's completion for this turn (retried when it broke off; ModelError when it gives up)."""
        self.history.append({"role": "user", "content": self.prompt(who, command, seen)})
        del self.history[:-2 * HISTORY + 1]
        messages = [{"role": "system", "content": self.system()}, *self.history]
        backend = BACKENDS[self.spec.backend]
        for attempt in range(self.spec.max_retries + 1):
            try:
                result = await backend.complete(self.spec, messages, self.tools or None, "auto", None)
                break
            except Transient:
                if attempt == self.spec.max_retries:
                    raise ModelError(f"{self.spec.name} (voice of {self.character.id}): gave up after"
                                     f" {plural(attempt + 1, 'try', 'tries')}") from None
                await asyncio.sleep(min(0.5 * 2 ** attempt, 8.0))
        # content "" and never null: llama.cpp's server rejects an assistant message whose content is null
        self.history.append({"role": "assistant", "content": result.text or ""})
        return result


class Voices:
    """Every voiced character of a world; None from ``for_world`` when it has none."""

    def __init__(self, world, voices: dict[str, Voice]) -> None:
        self.world = world
        self.voices = voices

    @classmethod
    def for_world(cls, world, resolve_spec=resolve) -> "Voices | None":
        """ValueError naming the character when its voice is not a model this machine knows."""
        chars = voiced(world)
        if not chars:
            return None
        voices = {}
        for c in chars:
            try:
                spec = resolve_spec(c.voice)
            except ValueError as exc:
                raise ValueError(f"the voice of {c.id!r} ({c.voice}): {exc}") from None
            problem = BACKENDS[spec.backend].missing()
            if problem:
                raise ValueError(f"the voice of {c.id!r} ({c.voice}): {problem}")
            voices[c.id] = Voice(world, c, spec)
        return cls(world, voices)

    def spoken_to(self, turn) -> list[str]:
        """The voiced characters this turn turned to."""
        result = turn.result
        if result is None or result.fail is not None or result.action not in SPOKEN_TO:
            return []
        named = {v for v in result.args.values() if isinstance(v, str)}
        return [cid for cid in self.voices if cid in named]

    async def after_turn(self, episode, turn) -> None:
        """Each character spoken to answers through its model; its lines and tool calls join the turn."""
        for cid in self.spoken_to(turn):
            voice = self.voices[cid]
            who = self.world.name_of(turn.actor) if turn.actor else "the player"
            result = await voice.ask(who, turn.command or "", turn.observation or "")
            lines = []
            said = (result.text or "").strip()
            if said:
                lines.append(f'{self.world.name_of(cid).title()} says: "{said}"')
            episode.scene_event(turn, "character_said", {"character": cid, "voice": voice.spec.name,
                                                         "said": said})
            for call in result.tool_calls:
                arguments = _arguments(call.arguments)
                out = episode.game.scene_call(cid, call.name)
                entry = dict(out.log[0]) if out.log else {}
                entry["arguments"] = {**entry.get("arguments", {}), "model_arguments": arguments}
                episode.scene_event(turn, "character_call", entry)
                lines.extend(out.lines)
            episode.scene_lines(turn, lines)


def _arguments(text: str):
    try:
        return parse_json(text) if text else {}
    except ValueError:
        return text
