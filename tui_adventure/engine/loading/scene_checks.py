"""Reading a world's scene keys (``characters:``, ``tables:``, ``events:``, ``lose:``) with their positions.

Mixed into the world builder, like the other checks: every mistake is
reported at its ``file:line:col`` with the fix, and what is read becomes a
``SceneSpec`` plus the characters as entities and facts. Characters are
things the player can see and name (``talk to the goblin``), with the trait
``character``; what they hold is ``held_by(X, C)``.
"""

from __future__ import annotations

from typing import Any, Callable

from ..rules import LogicError, atoms_in, parse_condition, parse_effects, parse_actions
from ..scenes import SCENE_PREDICATES, Character, Happening, Loss, SceneSpec, Table
from ..world import Entity
from ..yamlpos import _kind, did_you_mean, key_pos_of, pos_of

SCENE_KEYS = ("characters", "tables", "events", "lose", "players")
PLAYER_KEYS = ("id", "name", "start", "persona", "description")
CHARACTER_KEYS = ("name", "adjectives", "synonyms", "description", "at", "persona", "goal", "traits", "flaws",
                  "greeting", "topics", "route", "rules", "voice", "tools")
TOOL_KEYS = ("id", "description", "when", "do", "say", "message", "once", "draw")
RULE_KEYS = ("id", "when", "at", "every", "after", "do", "say", "message", "once", "draw")
LOSE_KEYS = ("when", "message")
MAX_TURN = 100_000

# The player's side of a scene: talking, asking and giving. ``ask`` takes any words as its topic,
# so the planner never uses it (a rule may not wait for it); talking and giving it can plan with.
SCENE_ACTIONS: list[dict[str, Any]] = [
    {"id": "talk", "syntax": ["talk to {c}", "talk with {c}", "speak to {c}", "speak with {c}", "greet {c}"],
     "params": {"c": "thing"}, "checks": [["character(c)", "{The c} cannot talk.", "not_character"]],
     "success": "{greeting(c)}"},
    {"id": "ask", "syntax": ["ask {c} about {topic}", "question {c} about {topic}"],
     "params": {"c": "thing", "topic": "word"}, "info": True,
     "checks": [["character(c)", "{The c} cannot talk.", "not_character"]], "success": "{answer(c, topic)}"},
    {"id": "give", "syntax": ["give {obj} to {c}", "offer {obj} to {c}", "hand {obj} to {c}"],
     "params": {"obj": "thing", "c": "thing"},
     "checks": [["held(obj)", "You don't have {the obj}.", "not_held"],
                ["character(c)", "You can't give anything to {the c}.", "not_character"]],
     "effects": ["del held(obj)", "add held_by(obj, c)"], "success": "You give {the obj} to {the c}."},
]


class SceneChecks:
    """Mixed into the world builder (which provides ``d``, ``err`` and ``check_id``)."""

    # what the class it is mixed into provides (declared for the type checker)
    d: dict
    err: Callable[..., None]
    check_id: Callable[..., Any]
    seen: dict
    words: Any

    def scene(self, entities: dict, facts: list, room_ids: list[str]) -> tuple[SceneSpec | None, list]:
        """The scene and the actions it adds, or (None, []) for a world without one."""
        if not any(k in self.d for k in SCENE_KEYS):
            return None, []
        spec = SceneSpec()
        self._scene_conditions: list = []   # (where, condition text): their predicates are checked once built
        self.tables(spec)
        self.characters(spec, entities, facts, room_ids)
        self.players(spec, entities, facts, room_ids)
        for i, item in enumerate(self._list("events")):
            h = self.happening(self.d["events"], i, item, None, spec)
            if h is not None:
                spec.happenings.append(h)
        for i, item in enumerate(self._list("lose")):
            where = pos_of(self.d["lose"], i)
            if not isinstance(item, dict):
                self.err(where, "each lose: item is a mapping with when: (a condition) and message:")
                continue
            self._unknown(item, LOSE_KEYS, "a lose: item")
            when = self._condition(item, "when", required=True)
            message = self._text(item, "message") or "You have lost."
            if when:
                spec.losses.append(Loss(when, message))
        ids = [h.id for h in spec.happenings]
        for h in spec.happenings:
            if ids.count(h.id) > 1:
                self.err(pos_of(self.d, "events"), f"two events or rules have the id {h.id!r}: give each its own id")
                break
        facts.extend(spec.initial_facts())
        errors: list = []
        actions = parse_actions(SCENE_ACTIONS, "<scene actions>", errors)
        return spec, actions

    # -- pieces ----------------------------------------------------------------------------------
    def _list(self, key: str) -> list:
        value = self.d.get(key)
        if value is None:
            return []
        if not isinstance(value, list):
            self.err(pos_of(self.d, key), f"{key} must be a list, not a {_kind(value)} (write each item as '- ...')")
            return []
        return value

    def _unknown(self, item: dict, allowed, what: str) -> None:
        for k in item:
            if k not in allowed:
                self.err(key_pos_of(item, k), f"unknown key {k!r} in {what}{did_you_mean(k, allowed)}"
                                              f" (allowed: {', '.join(allowed)})")

    def _text(self, item: dict, key: str) -> str | None:
        value = item.get(key)
        if value is None:
            return None
        if not isinstance(value, str):
            self.err(pos_of(item, key), f"{key} must be text, not a {_kind(value)} (put it in quotes)")
            return None
        return value.strip()

    def _lines(self, item: dict, key: str) -> tuple[str, ...]:
        value = item.get(key)
        if value is None:
            return ()
        if isinstance(value, str):
            return (value.strip(),)
        if isinstance(value, list) and all(isinstance(v, str) for v in value):
            return tuple(v.strip() for v in value)
        self.err(pos_of(item, key), f"{key} is text or a list of texts")
        return ()

    def _turn(self, item: dict, key: str) -> int | None:
        value = item.get(key)
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= MAX_TURN:
            self.err(pos_of(item, key), f"{key} is a turn number from 1 to {MAX_TURN}, not {value!r}")
            return None
        return value

    def scene_effect_texts(self) -> list[str]:
        """Effects the scene may apply (its events', its rules', giving): predicates a goal may name."""
        if not any(k in self.d for k in SCENE_KEYS):
            return []
        items = [e for e in self.d.get("events") or [] if isinstance(e, dict)]
        chars = self.d.get("characters")
        for c in (chars.values() if isinstance(chars, dict) else []):
            items += [r for r in (c.get("rules") or [] if isinstance(c, dict) else []) if isinstance(r, dict)]
        texts = [a for action in SCENE_ACTIONS for a in action.get("effects", [])] if chars else []
        for item in items:
            effects = item.get("do") or []
            texts += [effects] if isinstance(effects, str) else [str(e) for e in effects] if isinstance(effects, list) else []
        return texts

    def scene_predicates(self, ruleset, facts: list) -> None:
        """Every predicate a scene's condition reads exists somewhere (a misspelt one would never hold).
        Checked before the world is built, so a skeleton's every to-do is reported in one go."""
        from ..styles.classic import ClassicStyle
        from ..rules import LOADER_FACTS

        known = {f[0] for f in facts} | set(SCENE_PREDICATES) | {"character", "held_by"} | set(LOADER_FACTS)
        known |= set(ruleset.macros) | set(ClassicStyle.BUILTINS)
        for spec in ruleset.actions:
            for text in spec.effects:
                known |= {a.pred for a in atoms_in(parse_effects(text))}
        items = self.d.get("actions")
        for item in items if isinstance(items, list) else []:
            effects = item.get("effects") if isinstance(item, dict) else None
            for text in [effects] if isinstance(effects, str) else effects if isinstance(effects, list) else []:
                try:
                    known |= {a.pred for a in atoms_in(parse_effects(str(text)))}
                except LogicError:
                    pass
        for text in self.scene_effect_texts():
            try:
                known |= {a.pred for a in atoms_in(parse_effects(text))}
            except LogicError:
                pass
        for where, text in self._scene_conditions:
            for atom in atoms_in(parse_condition(text)):
                if atom.pred not in known:
                    self.err(where, f"{atom.pred!r} is no predicate of this world{did_you_mean(atom.pred, known)}"
                                    " (a condition names facts that some room, object, action or event makes)")
                    break

    def _condition(self, item: dict, key: str, required: bool = False) -> str | None:
        value = item.get(key)
        if value is None:
            if required:
                self.err(getattr(item, "pos", None), f"{key}: is required here (a condition such as at(player, pit))")
            return None
        try:
            parse_condition(str(value))
        except LogicError as exc:
            self.err(pos_of(item, key), f"{key}: {exc}")
            return None
        self._scene_conditions.append((pos_of(item, key), str(value)))
        return str(value)

    def _mapping(self, key: str, what: str) -> dict | None:
        """The world's ``key:`` when it is a mapping; None when absent (or wrong, which is reported)."""
        value = self.d.get(key)
        if value is not None and not isinstance(value, dict):
            self.err(pos_of(self.d, key), f"{key} is a mapping of {what}")
            return None
        return value

    def tables(self, spec: SceneSpec) -> None:
        tables = self._mapping("tables", "name: [entries]")
        if tables is None:
            return
        for tid, value in tables.items():
            replace = True
            if isinstance(value, dict):
                self._unknown(value, ("entries", "replace"), f"table {tid!r}")
                replace = value.get("replace", True)
                if not isinstance(replace, bool):
                    self.err(pos_of(value, "replace"), "replace is true (draws put the entry back) or false")
                    replace = True
                value = value.get("entries")
            if not isinstance(value, list) or not value or not all(isinstance(v, (str, int)) for v in value):
                self.err(pos_of(tables, tid), f"table {tid!r} needs a non-empty list of entries (e.g. {tid}: [rain, fog])")
                continue
            spec.tables[str(tid)] = Table(str(tid), tuple(str(v) for v in value), replace)

    def characters(self, spec: SceneSpec, entities: dict, facts: list, room_ids: list[str]) -> None:
        chars = self._mapping("characters", "id: {name, at, persona, ...}")
        if chars is None:
            return
        for cid, c in chars.items():
            if not self.check_id(chars, cid, "character", self.seen):
                continue
            c = c if isinstance(c, dict) else {}
            self._unknown(c, CHARACTER_KEYS, f"character {cid!r}")
            room = c.get("at")
            if room not in room_ids:
                self.err(pos_of(c, "at") if "at" in c else pos_of(chars, cid),
                         f"character {cid!r} needs at: a room{did_you_mean(room, room_ids) if room else ''}"
                         f" (rooms: {', '.join(room_ids)})")
                continue
            route = c.get("route") or []
            if not isinstance(route, list) or any(r not in room_ids for r in route):
                self.err(pos_of(c, "route"), f"route is a list of rooms (rooms: {', '.join(room_ids)})")
                route = []
            topics = c.get("topics") or {}
            if not isinstance(topics, dict) or not all(isinstance(v, str) for v in topics.values()):
                self.err(pos_of(c, "topics"), "topics is a mapping of topic: answer")
                topics = {}
            entities[cid] = Entity(cid, (self._text(c, "name") or cid.replace("_", " ")).lower(),
                                   adjectives=self.words(c, "adjectives"), synonyms=self.words(c, "synonyms"),
                                   description=self._text(c, "description") or "")
            facts.extend([("at", cid, room), ("character", cid)])
            spec.characters[cid] = Character(cid, self._lines(c, "persona"), self._text(c, "goal") or "",
                                             self._lines(c, "traits"), self._lines(c, "flaws"),
                                             self._text(c, "greeting") or "",
                                             {str(k).lower(): v for k, v in topics.items()}, tuple(route),
                                             self.voice(c, cid))
            self.tools(c, cid, spec)
            rules = c.get("rules") or []
            if not isinstance(rules, list):
                self.err(pos_of(c, "rules"), "rules is a list of {when, do, say} items")
                continue
            for i, rule in enumerate(rules):
                h = self.happening(rules, i, rule, cid, spec)
                if h is not None:
                    spec.happenings.append(h)

    def voice(self, c: dict, cid: str) -> str | None:
        voice = c.get("voice")
        if voice is not None and (not isinstance(voice, str) or not voice.strip()):
            self.err(pos_of(c, "voice"), f"voice: names the model that speaks for {cid!r} (a model_registry.json"
                                         " name, as --player takes)")
            return None
        return voice

    def tools(self, c: dict, cid: str, spec: SceneSpec) -> None:
        """``tools:``: what a voiced character's model may do, each {id, description, when, do, say}."""
        tools = c.get("tools")
        if tools is None:
            return
        if not c.get("voice") or not isinstance(tools, list):
            self.err(pos_of(c, "tools"), "tools: is a list of {id, description, when, do, say} for a character"
                                         " with a voice: (its model calls them)")
            return
        seen: set = set()
        for i, item in enumerate(tools):
            if not isinstance(item, dict) or not isinstance(item.get("id"), str) or not item["id"].isidentifier():
                self.err(pos_of(tools, i), "a tool is a mapping with an id (letters, digits, _), description:,"
                                           " when:, do: and say:")
                continue
            if item["id"] in seen:
                self.err(pos_of(item, "id"), f"tool {item['id']!r} is listed twice (give each tool its own id)")
                continue
            seen.add(item["id"])
            self._unknown(item, TOOL_KEYS, f"tool {item['id']!r}")
            h = self.happening(tools, i, item, cid, spec, tool=True)
            if h is not None:
                spec.happenings.append(h)

    def players(self, spec: SceneSpec, entities: dict, facts: list, room_ids: list[str]) -> None:
        """``players:``: two or more, in turn order. The first starts at ``start:``; the others are
        people in the world (the trait ``character``) until it is their turn."""
        items = self._list("players")
        if not items:
            return
        if len(items) < 2:
            self.err(pos_of(self.d, "players"), "players: lists two or more players (one player needs no list)")
            return
        ids = []
        for i, p in enumerate(items):
            where = pos_of(self.d["players"], i)
            if not isinstance(p, dict) or not isinstance(p.get("id"), str):
                self.err(where, "each player is a mapping with at least an id (and start:, name:, persona:)")
                continue
            self._unknown(p, PLAYER_KEYS, "a player")
            pid = p["id"]
            if not self.check_id(p, pid, "player", self.seen):
                continue
            start = p.get("start", self.d.get("start"))
            if start not in room_ids:
                self.err(pos_of(p, "start") if "start" in p else where,
                         f"player {pid!r} needs start: a room{did_you_mean(start, room_ids) if start else ''}")
                continue
            if i == 0 and start != self.d.get("start"):
                self.err(pos_of(p, "start"), f"the first player starts at start: ({self.d.get('start')}), not {start!r}")
                continue
            name = self._text(p, "name") or pid.capitalize()
            entities[pid] = Entity(pid, name, synonyms=(name.lower(), pid), article="",   # a name, not "a bo"
                                   description=self._text(p, "description") or " ".join(self._lines(p, "persona")))
            facts.append(("character", pid))
            if i:
                facts.append(("at", pid, start))
            ids.append(pid)
        if len(ids) == len(items):
            spec.players = tuple(ids)

    def happening(self, items, i: int, item, character: str | None, spec: SceneSpec,
                  tool: bool = False) -> Happening | None:
        where = pos_of(items, i)
        what = f"a rule of {character!r}" if character else "an event"
        if not isinstance(item, dict):
            self.err(where, f"{what} is a mapping with when:/at:/every:, do: and say:")
            return None
        if not tool:
            self._unknown(item, RULE_KEYS, what)
        at, every = self._turn(item, "at"), self._turn(item, "every")
        when = self._condition(item, "when")
        after = item.get("after") or []
        after = [after] if isinstance(after, str) else after
        if after and (character is None or not isinstance(after, list) or not set(after) <= {"talk", "give"}):
            self.err(pos_of(item, "after"), "after: is for a character's rules: talk or give (the actions that name"
                                            " the character and can be planned)")
            after = []
        if at is None and every is None and when is None and not after and not tool:
            self.err(where, f"{what} needs at: N, every: K, when: CONDITION or after: (else it never happens)")
            return None
        effects = item.get("do") or []
        effects = [effects] if isinstance(effects, str) else effects
        for j, eff in enumerate(effects if isinstance(effects, list) else []):
            try:
                parse_effects(str(eff))
            except LogicError as exc:
                self.err(pos_of(effects, j), f"do: {exc}")
        draws = item.get("draw") or {}
        if not isinstance(draws, dict) or not all(t in spec.tables for t in draws):
            self.err(pos_of(item, "draw"), f"draw: maps a table to a name for its entry, e.g. {{weather: w}}"
                                           f" (tables: {', '.join(spec.tables) or 'none'})")
            draws = {}
        once = item.get("once", at is None and every is None and not tool)
        hid = str(item.get("id") or (f"{character}_rule_{i + 1}" if character else f"event_{i + 1}"))
        message = self._text(item, "say" if "say" in item else "message") or ""
        return Happening(hid, tuple(str(e) for e in effects), message, at, every, when, tuple(after), character,
                         bool(once), tuple((str(t), str(v)) for t, v in draws.items()), tool,
                         self._text(item, "description") or "" if tool else "")
