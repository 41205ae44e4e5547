"""The classic style: a location tree, doors between rooms, Infocom-like texts."""

from __future__ import annotations

from ..parts import StylePart
from .base import ROOM_TEXT, Exit, Sight
from .classic_plan import ClassicPlanning
from ..parsers import CommandParser
from ..parsers.parser import SCOPE
from ..text import capitalise, english_list

DIRECTIONS = {
    "n": "north", "s": "south", "e": "east", "w": "west",
    "ne": "northeast", "nw": "northwest", "se": "southeast", "sw": "southwest",
    "u": "up", "d": "down", "north": "north", "south": "south", "east": "east", "west": "west",
    "northeast": "northeast", "northwest": "northwest", "southeast": "southeast",
    "southwest": "southwest", "up": "up", "down": "down", "upstairs": "up", "downstairs": "down",
    "north east": "northeast", "north west": "northwest", "south east": "southeast",
    "south west": "southwest", "in": "in", "out": "out", "inside": "in", "outside": "out",
}
_DIRECTION_WORDS = frozenset(DIRECTIONS)
_AT_PLAYER = ("at", "player")
_EMPTY: frozenset = frozenset()
def _no_words(st) -> tuple:
    return ()


COMPASS = ("north", "south", "east", "west", "northeast", "northwest", "southeast", "southwest",
           "up", "down", "in", "out")


class ClassicStyle(ClassicPlanning, StylePart):
    BUILTINS = ("visible", "encloses")   # the predicates it computes in Python (what a world's checks may name)
    player_at = _AT_PLAYER   # see Style.player_at: player_room reads this entry

    def __init__(self, world) -> None:
        self.part_of(world)
        ents = world.entities
        self.passages = {}
        for f in world.initial_facts:
            if f[0] == "exit" and f[2] not in COMPASS:
                self.passages[f[2].replace("_", " ")] = f[2]
        self.room_names = {}
        for e in ents.values():
            if e.kind == "room":
                self.room_names[e.name] = e.id
                self.room_names.setdefault(e.id.replace("_", " "), e.id)
        self._descriptions: dict = {}   # _room_key -> a room's description
        self._by_state: dict = {}       # a state's key -> its room's description
        self._scopes: dict = {}
        self._command_words: dict = {}   # action -> its words (command_text)
        self._thing_words: dict = {}     # (thing, things in sight) -> the words that name it (command_text)

    # Tables of its own methods, made on each reading: kept on the style, they would hold it in a reference cycle.
    @property
    def builtins(self) -> dict:   # names: BUILTINS
        return {"visible": self.visible, "encloses": self.encloses}

    @property
    def functions(self) -> dict:
        return {"room_description": self.room_description, "inventory_text": self.inventory_text,
                "examine": self.examine, "revealed": self.revealed, "door_on": self.door_on, "door_to": self.door_to}

    @property
    def domains(self) -> dict:
        return {"thing": self.scope_list, "room": self.neighbour_rooms, "dir": self.exit_labels, "word": _no_words}

    @property
    def sight(self) -> Sight:
        # the commands read the room, what is in sight or held, and the player: scope walks only from the room and
        # what is held, visible and encloses climb from their arguments through things in sight (or held) to the
        # room, exits are read by the room, a command's words by scope alone (encloses: in/on/at)
        return Sight(self.sight_ids, frozenset({"player"}), frozenset({"thing"}), frozenset({"in", "on", "at"}))

    def make_parser(self, world) -> CommandParser:
        # what direction and room_named read beyond DIRECTIONS, once for every world that reads them alike
        one_words = _DIRECTION_WORDS | frozenset(self.passages) if self.passages else _DIRECTION_WORDS
        return CommandParser(world, self, one_words,
                             reads={"dir": lambda: frozenset(self.passages.items()),
                                    "room": lambda: frozenset(self.room_names.items())})

    # where things are -------------------------------------------------
    def player_room(self, st) -> str | None:
        at = st.o1.get(_AT_PLAYER)
        for r in (st.b1.get(_AT_PLAYER, ()) if at is None else at):
            return r[0]
        return None

    def closed(self, st, x: str) -> bool:
        return ("openable", x) in st and ("open", x) not in st

    def scope(self, st) -> frozenset:
        """What the player can see (and so name): the room's contents through open containers, and what is held."""
        hit = st.cache.get(SCOPE)
        if hit is not None:
            return hit
        hit = self._scopes.get(st.key)
        if hit is not None:
            st.cache[SCOPE] = hit
            return hit
        room = self.player_room(st)
        firsts = st.firsts
        stack = [x for x in firsts("at", room) if x != "player"]
        stack.extend(firsts("held", ""))
        seen: set = set()
        over, known = st.over, st.known
        while stack:
            x = stack.pop()
            if x in seen:
                continue
            seen.add(x)
            stack.extend(firsts("on", x))
            f, g = ("openable", x), ("open", x)
            if not (over[f] if f in over else f in known) or (over[g] if g in over else g in known):
                stack.extend(firsts("in", x))
        hit = frozenset(seen)
        st.cache[SCOPE] = hit
        if len(self._scopes) > 512:
            self._scopes.clear()
        self._scopes[st.key] = hit
        return hit

    def sight_ids(self, st) -> tuple:
        """(the player's room, the player, then what is in sight), for ``Sight.ids``."""
        return (self.player_room(st), "player", *self.scope(st))

    def scope_list(self, st) -> list[str]:
        hit = st.cache.get("scope_list")
        if hit is None:
            hit = self.sort_ids(self.scope(st))
            st.cache["scope_list"] = hit
        return hit

    def visible(self, st, x: str) -> bool:
        """``x in scope(st)``, found by climbing from x: x is in sight when a chain of on/in (through open or
        unopenable holders) leads from it to something held or standing in the player's room."""
        hit = st.cache.get(SCOPE)
        if hit is not None:
            return x in hit
        # a thing is looked for among those standing in the room as soon as it is reached
        o1, b1 = st.o1, st.b1
        v = o1.get(_AT_PLAYER)
        room = None
        for r in (b1.get(_AT_PLAYER, ()) if v is None else v):
            room = r[0]
            break
        k = ("at", room)
        v = st.o2.get(k)
        standing = st.b2.get(k, _EMPTY) if v is None else v
        if x in standing and x != "player":
            return True
        over, known = st.over, st.known
        f = ("held", x)
        if over[f] if f in over else f in known:
            return True
        # Held, or on or in something standing there (most things named), is found before the walk's
        # set and stack are made; what x is on or in (through an open holder) is where the walk starts.
        up = None
        k = ("on", x)
        v = o1.get(k)
        for rest in (b1.get(k, ()) if v is None else v):
            z = rest[0] if rest else None
            if z is None or z == x:
                continue
            if z in standing and z != "player":
                return True
            up = [z] if up is None else up + [z]
        k = ("in", x)
        v = o1.get(k)
        for rest in (b1.get(k, ()) if v is None else v):
            z = rest[0] if rest else None
            if z is None or z == x:
                continue
            f, g = ("openable", z), ("open", z)
            if not (over[f] if f in over else f in known) or (over[g] if g in over else g in known):
                if z in standing and z != "player":
                    return True
                up = [z] if up is None else up + [z]
        if up is None:
            return False
        seen = {x, *up}
        stack = up
        while stack:
            y = stack.pop()
            f = ("held", y)
            if over[f] if f in over else f in known:
                return True
            k = ("on", y)
            v = o1.get(k)
            for rest in (b1.get(k, ()) if v is None else v):
                z = rest[0] if rest else None
                if z is None or z in seen:
                    continue
                if z in standing and z != "player":
                    return True
                seen.add(z)
                stack.append(z)
            k = ("in", y)
            v = o1.get(k)
            for rest in (b1.get(k, ()) if v is None else v):
                z = rest[0] if rest else None
                if z is None or z in seen:
                    continue
                f, g = ("openable", z), ("open", z)
                if not (over[f] if f in over else f in known) or (over[g] if g in over else g in known):
                    if z in standing and z != "player":
                        return True
                    seen.add(z)
                    stack.append(z)
        return False

    def parent(self, st, x: str) -> str | None:
        o1, b1 = st.o1, st.b1
        for pred in ("in", "on", "at"):
            k = (pred, x)
            v = o1.get(k)
            for r in (b1.get(k, ()) if v is None else v):
                return r[0]
        return None

    def encloses(self, st, outer: str, inner: str) -> bool:
        """Whether ``outer`` is up the chain of ``parent`` from ``inner`` (64 steps at most); a thing with
        nothing in, on or at it is up no chain."""
        o2, b2 = st.o2, st.b2
        v = o2.get(k := ("in", outer))
        if not (b2.get(k) if v is None else v):
            v = o2.get(k := ("on", outer))
            if not (b2.get(k) if v is None else v):
                v = o2.get(k := ("at", outer))
                if not (b2.get(k) if v is None else v):
                    return False
        o1, b1 = st.o1, st.b1
        x = inner
        for n in range(65):
            v = o1.get(k := ("in", x))
            if v is None:
                v = b1.get(k)
            if not v:
                v = o1.get(k := ("on", x))
                if v is None:
                    v = b1.get(k)
                if not v:
                    v = o1.get(k := ("at", x))
                    if v is None:
                        v = b1.get(k)
                    if not v:
                        return False
            for r in v:
                x = r[0]
                break
            if n == 64:
                return False
            if x == outer:
                return True
        return False

    def neighbour_rooms(self, st) -> list[str]:
        room = self.player_room(st)
        return self.sort_ids({r[1] for r in st.rest("exit", room) if len(r) > 1})

    def exit_labels(self, st) -> list[str]:
        room = self.player_room(st)
        return sorted({r[0] for r in st.rest("exit", room)}, key=_dir_order)

    def all_candidates(self, action, slot: str, st) -> list[str]:
        env: dict = {}
        out = []
        for x in self.scope_list(st):
            env[slot] = x
            if self.entities[x].kind == "object" and ("door", x) not in st \
                    and action.all_where(st, env):
                out.append(x)
        return out

    # names for the parser ----------------------------------------------
    def direction(self, phrase: str) -> str | None:
        return DIRECTIONS.get(phrase) or self.passages.get(phrase)

    def room_named(self, phrase: str) -> str | None:
        words = " ".join(w for w in phrase.split() if w not in ("the", "a", "an"))
        return self.room_names.get(words)

    def distinct_name(self, eid: str, among: list[str]) -> str:
        """The shortest phrase (adjectives + name) that tells ``eid`` apart from the others."""
        ent = self.entities[eid]
        if not any(self.entities[o].name == ent.name for o in among if o != eid):
            return ent.name
        for adj in ent.adjectives:
            if not any(adj in self.entities[o].words() for o in among if o != eid):
                return f"{adj} {ent.name}" if adj not in ent.name.split() else ent.name
        return ent.name

    # texts ---------------------------------------------------------------
    def first_observation(self, st) -> str:
        intro = self.intro
        return f"{intro}\n\n{self.room_description(st)}" if intro else self.room_description(st)

    def a(self, eid: str) -> str:
        ent = self.entities[eid]
        if ent.article is not None:
            return f"{ent.article} {ent.name}".strip()
        return f"{'an' if ent.name[:1] in 'aeiou' else 'a'} {ent.name}"

    def _listed(self, st, ids) -> str:
        parts = []
        for x in self.sort_ids(ids):
            if ("openable", x) in st and ("door", x) not in st:
                parts.append(f"{self.a(x)} ({'open' if ('open', x) in st else 'closed'})")
            else:
                parts.append(self.a(x))
        return english_list(parts)

    def room_description(self, st) -> str:
        """Memoised in the state's cache (shared by an equal state that adopts it: ``State.adopt``), then on
        what it reads (``_room_key``): a random walk meets thousands of states, a few hundred rooms' looks."""
        text = st.cache.get(ROOM_TEXT)
        if text is not None:
            return text
        k = st.key
        text = self._by_state.get(k)
        if text is None:
            key = self._room_key(st)
            text = self._descriptions.get(key)
            if text is None:
                text = self._describe_room(st)
                if len(self._descriptions) >= 4_096:
                    self._descriptions.clear()
                self._descriptions[key] = text
            if len(self._by_state) >= 4_096:
                self._by_state.clear()
            self._by_state[k] = text
        st.cache[ROOM_TEXT] = text
        return text

    def _room_key(self, st) -> tuple:
        """What ``_describe_room`` reads, for a state made by a game's step: its base, and its overlay's
        facts naming the room, a thing in sight or a door on its exits (the description reads only facts
        naming those: a state of the same base and such overlay facts has the same). Else the facts."""
        base = st._base
        if base is None:
            return st.key
        room, scope = self.player_room(st), self.scope(st)
        near = {room, *scope}
        for v in st.rest("via", room):
            if len(v) > 1:
                near.add(v[1])
        return base, room, scope, frozenset([item for item in st.over.items() if not near.isdisjoint(item[0][1:])])

    def _describe_room(self, st) -> str:
        room = self.player_room(st)
        if room is None:   # facts edited by hand (a save) or a world's action left the player in no room
            raise ValueError("the player is in no room")
        ent = self.entities[room]
        lines = [capitalise(ent.name)]
        if ent.description:
            lines.append(ent.description)
        facts = st   # reads through a derived state's overlay
        top = [x for x in st.firsts("at", room) if x != "player" and ("door", x) not in facts]
        sentences = []
        if top:
            sentences.append(f"You see {self._listed(st, top)} here.")
        sentences.extend(self._contents_sentences(st, top))
        if sentences:
            lines.append(" ".join(sentences))
        lines.append(self.exits_text(st, room))
        return "\n".join(lines)

    def _contents_sentences(self, st, holders) -> list[str]:
        out = []
        queue = self.sort_ids(holders)
        while queue:
            x = queue.pop(0)
            on = st.firsts("on", x)
            if on:
                out.append(f"On {self._the(x)} you see {self._listed(st, on)}.")
                queue.extend(self.sort_ids(on))
            if not self.closed(st, x):
                inside = st.firsts("in", x)
                if inside:
                    out.append(f"In {self._the(x)} you see {self._listed(st, inside)}.")
                    queue.extend(self.sort_ids(inside))
        return out

    def _the(self, eid: str) -> str:
        ent = self.entities[eid]
        return ent.name if ent.article == "" else f"the {ent.name}"

    def exits_list(self, st, room: str | None = None) -> list[tuple[str, str, str | None]]:
        """(label, target room, door or None) for every exit of the room."""
        room = room or self.player_room(st)
        out = []
        for r in st.rest("exit", room):
            door = next((v[1] for v in st.rest("via", room) if v[0] == r[0]), None)
            out.append((r[0], r[1], door))
        return sorted(out, key=lambda e: _dir_order(e[0]))

    def exits(self, st, room: str) -> list[Exit]:
        return [Exit(label.replace("_", " "), target, door) for label, target, door in self.exits_list(st, room)]

    def exits_text(self, st, room: str) -> str:
        parts = []
        for label, _target, door in self.exits_list(st, room):
            label = label.replace("_", " ")
            if door:
                state = "open" if ("open", door) in st else "closed"
                parts.append(f"{label} ({self.name_of(door)}, {state})")
            else:
                parts.append(label)
        return f"Exits: {english_list(parts)}." if parts else "There is no obvious way out."

    def inventory_text(self, st) -> str:
        held = st.firsts("held", "")
        if not held:
            return "You are carrying nothing."
        return f"You are carrying {self._listed(st, held)}."

    def examine(self, st, x: str) -> str:
        ent = self.entities[x]
        parts = [ent.description or f"You see nothing special about the {ent.name}."]
        facts = st   # reads through a derived state's overlay
        if ("openable", x) in facts:
            parts.append(f"It is {'open' if ('open', x) in facts else 'closed'}.")
        if ("locked", x) in facts:
            parts.append("It is locked.")
        parts.extend(self._contents_sentences(st, [x]))
        if ("container", x) in facts and not self.closed(st, x) and not st.firsts("in", x):
            parts.append(f"The {ent.name} is empty.")
        return " ".join(parts)

    def revealed(self, st, x: str) -> str:
        inside = st.firsts("in", x)
        if not inside:
            return ""
        return f" Inside you see {self._listed(st, inside)}."

    def door_on(self, st, label: str) -> str:
        room = self.player_room(st)
        for v in st.rest("via", room):
            if v[0] == label:
                return f"The {self.name_of(v[1])}"
        return "The way"

    def door_to(self, st, target: str) -> str:
        for _label, t, door in self.exits_list(st):
            if t == target and door:
                return f"The {self.name_of(door)}"
        return "The way"

    def command_text(self, action, env: dict, st) -> str:
        """A command the parser reads back as exactly this action (names told apart where needed).

        The planner and the admissible commands ask for thousands a second: an action's words are
        worked out once (``_words``), and a thing's name once per set of things in sight."""
        plan = self._command_words.get(action)
        if plan is None:
            plan = self._command_words[action] = _words(action)
        words = []
        for item in plan:
            if type(item) is str:
                words.append(item)
                continue
            slot, kind = item
            if kind == "thing":
                value = env[slot]   # a thing's slot is always bound: the action's parameter
                key = (value, self.scope(st))
                word = self._thing_words.get(key)
                if word is None:
                    scope = [o for o in self.scope_list(st) if o != value]
                    same = [o for o in scope if self.entities[value].name.split()[-1] in self.entities[o].words()]
                    word = self.distinct_name(value, [value, *same]) if same else self.name_of(value)
                    if len(self._thing_words) > 65_536:
                        self._thing_words.clear()
                    self._thing_words[key] = word
                words.append(word)
            elif kind == "room":
                words.append(self.name_of(env.get(slot)))
            else:
                words.append(str(env.get(slot)).replace("_", " "))
        return " ".join(words)

    # for the panels ------------------------------------------------------
    def held(self, st) -> list[str]:
        return self.sort_ids(st.firsts("held", ""))


def _words(action) -> tuple:
    """An action's command as words: a fixed word, or (slot, kind) to fill in (``command_text``)."""
    want = set(action.params)
    syntax = next((s for s in action.spec.syntax if set(_slots(s)) == want), action.spec.syntax[0])
    return tuple((w[1:-1], action.spec.params.get(w[1:-1])) if w.startswith("{") else w.split("|")[0]
                 for w in syntax.split())


def _slots(syntax: str) -> list[str]:
    return [w[1:-1] for w in syntax.split() if w.startswith("{")]


def _dir_order(label: str) -> tuple:
    return (COMPASS.index(label), "") if label in COMPASS else (len(COMPASS), label)
