"""One playthrough of a world: commands in, observations and goal changes out.

The engine applies every command it is given and never decides that a game is
over: a win or a ``done`` only sets ``done`` on that step. Turn limits, abort
rules and scoring belong to the episode loop above it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .facts import State, format_fact
from .parsers import CommandParser, Failure, Parsed, Question
from .parsers.parser import PRONOUNS, normalise
from .world import World


_NONE: frozenset = frozenset()


@dataclass(slots=True)
class StepResult:
    command: str
    text: object                      # the observation: a str, or a text.Later rendered when first read
    fail: dict | None = None          # {"phase": "parsing"|"resolution", "type": ...}
    done: bool = False
    goals_achieved: list[str] = field(default_factory=list)
    goal_score: int = 0               # change in the number of achieved goals (can be negative)
    changed: bool = False
    action: str | None = None         # the action's id, when the command parsed
    args: dict = field(default_factory=dict)
    scene: list = field(default_factory=list)   # what the scene did after the command (engine.scene), logged
    lost: str | None = None           # the scene's loss message when this turn lost the game
    # What a game's usual step hands over for ``args`` and ``goals_achieved`` (see ``_made``): copied
    # into them when first read, since a replay reads few results and each copy is a part of its cost.
    _env: dict | None = field(default=None, repr=False, compare=False)
    _goals: list | None = field(default=None, repr=False, compare=False)

    def __getattr__(self, name: str):
        """A field ``_made`` left unset, given its value on first reading (only an unset slot comes here:
        the first reading costs an exception, so only the fields that cost a copy or a list are left
        unset; the flags an agent's loop reads every turn are set)."""
        if name == "args":
            value = dict(self._env)
        elif name == "goals_achieved":
            value = list(self._goals)
        elif name == "scene":
            value = []
        else:
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
        setattr(self, name, value)
        return value

    @property
    def observation(self) -> str:
        """What the player reads; rendered on first reading (a replay that reads none renders none)."""
        text = self.text
        if type(text) is not str:
            text = self.text = str(text)
        return text

    @observation.setter
    def observation(self, value: str) -> None:
        self.text = value

    def as_json(self, turn: int) -> dict:
        return {"turn": turn, "command": self.command, "observation": self.observation,
                "goals_achieved": self.goals_achieved, "goal_score": self.goal_score,
                "fail": self.fail, "done": self.done}


_new = object.__new__


def _made(command: str, text, action: str, env: dict, fail: dict | None, done: bool) -> StepResult:
    """The result of a step that applied one action, as the constructor would make it but for what is
    read late: ``args`` is copied from ``env`` (a step's own, which no one changes after) and
    ``goals_achieved`` from ``_goals`` (the game sets it: it replaces its list of goal texts, never
    changes it) when first read, and ``scene`` made then (``StepResult.__getattr__``)."""
    result = _new(StepResult)
    result.command = command
    result.text = text
    result.action = action
    result._env = env
    result.fail = fail
    result.done = done
    result.goal_score = 0
    result.changed = False
    result.lost = None
    return result


# A known turn (``Game.play``), a list: what a step from one state by one command did, for the same
# step from that state again. NEXT may be replaced by an equal state (a caller's canonical one: see
# agents.env); OBS and EXTRA are the caller's to fill (the observation as it hands it out, the next
# state's admissible commands), since a record lives in the state's cache, as long as the step's memo.
NEXT, TEXT, DONE, ENDED, NAMED, ADDED, REMOVED, ACHIEVED, ACHIEVED_TEXT, GOAL_SCORE, OBS, EXTRA = range(12)
# a known turn's key in a state's cache is (_PLAYED, command): a key of atoms, which the cyclic collector
# stops tracking, where a dict per state of its commands would be one more container it walks
_PLAYED = object()

# A turn's undo record, a tuple: (added, removed, pending, last, achieved, command); ``added`` and
# ``removed`` are the step's change, ``pending``, ``last`` and ``achieved`` what they were before it.
_ADDED, _REMOVED, _PENDING, _LAST, _ACHIEVED = range(5)


_NO_PRONOUN: dict = {}   # command -> it names no pronoun (a known turn's record is kept only then)


def _names_no_pronoun(command: str) -> bool:
    """Whether ``command`` names no pronoun, remembered: a random walk's new turns are a few hundred
    commands over and over, and reading their words again cost each new turn a regular expression and a split."""
    if len(_NO_PRONOUN) >= 8_192:   # a bound, not a leak
        _NO_PRONOUN.clear()
    out = _NO_PRONOUN[command] = PRONOUNS.isdisjoint(normalise(command))
    return out


def _first(x: str, old: list) -> list:
    """What "it" means after naming ``x``: x, then the two named before it (apart from ``Game.step``;
    a loop, not a comprehension: that is a function called, and a list sliced and joined)."""
    new = [x]
    for y in old:
        if y != x:
            new.append(y)
            if len(new) == 3:
                break
    return new


class Game:
    def __init__(self, world: World) -> None:
        self.world = world
        self.parser = world.parser
        self.state: State = world.initial
        self.turn = 0
        self.pending: Question | None = None
        self.last: list[str] = []      # what "it" means: this game's, not the shared parser's
        self.commands: list[str] = []
        self._log: list[tuple] = []   # one undo record a turn (see _ADDED)
        self.achieved = world.initial_achieved
        self._achieved_text = world.initial_achieved_text   # replaced, never changed in place
        self._goal_facts = world.goal_facts
        self._goal_rows = world.goal_rows
        self.finished = False
        self.lost: str | None = None   # a scene's loss: the game is over, whatever comes after
        self._scene = world.scene
        self._goal_count = len(world.goals)   # a world's goals are fixed: the win test reads no list
        # commands of one word read alike in every state (north, look): see CommandParser._read_once
        self._once = self.parser.once

    # reading -------------------------------------------------------------
    def first_observation(self) -> str:
        return self.world.style.first_observation(self.state)

    def goals_achieved(self, st: State | None = None) -> list[str]:
        st = st or self.state
        return sorted(str(g) for g in self.world.goals if g.holds(st))

    def goal_facts(self) -> list[str]:
        return [str(g) for g in self.world.goals]

    def all_goals_achieved(self) -> bool:
        return len(self.achieved) == len(self.world.goals)

    # playing -------------------------------------------------------------
    def step(self, command: str) -> StepResult:
        if type(command) is not str:
            command = str(command)
        before = self.state
        # ``last`` is replaced, never changed in place, so the record may share the list
        pending, last, achieved = self.pending, self.last, self.achieved
        # The usual turn, one action applied to the state, runs in this one frame: a fresh game's step
        # is a few microseconds, and a call and a result made twice are a good part of them.
        once = self._once.get(command) if pending is None else None
        if once is not None:   # as the parser reads it (CommandParser.parse), without a Parsed made for it
            action, env = once[0], once[1].copy()
        else:
            parsed = self.parser.parse(command, before, last) if pending is None else None
            if type(parsed) is Parsed and not parsed.all_slot:   # the usual parse, read in this frame
                action, env = parsed.action, parsed.env
            else:
                action, env = self._parsed(command, parsed)   # no action: env is the turn's result already
        if action is None:
            result = env
            added, removed = self._change(result, before, self._single)
            result.goals_achieved = list(self._achieved_text)
        else:
            new, message, fail_type = action.stepper(action, before, env)
            for p in action.thing_params:   # what "it" means next: the first thing named, newest first
                x = env.get(p)
                if isinstance(x, str):
                    if not last or last[0] != x or len(last) > 3:   # else it is already so: x first, three at most
                        self.last = _first(x, last)
                    break
            if fail_type is not None:
                result = _made(command, message, action.id, env, {"phase": "resolution", "type": fail_type}, False)
            else:
                self.state = new
                result = _new(StepResult)   # _made written out: the usual step
                result.command = command
                result.text = message
                result.action = action.id
                result._env = env
                result.fail = None
                result.done = action.ends
                result.goal_score = 0
                result.changed = False
                result.lost = None
            if self._scene is not None:
                result.args = dict(env)   # what the scene reads, set: a field read late costs an exception
                added, removed = self._change(result, before, True)
            elif new is before:   # failed, or changed nothing
                added = removed = _NONE
            else:   # the action's own change: its delta, no set difference (sets no one changes: the record keeps them)
                delta = new.delta
                added, removed = delta if delta is not None else before.diff(new)
                result.changed = True
                goal_facts = self._goal_facts
                if not (goal_facts.isdisjoint(added) and goal_facts.isdisjoint(removed)):
                    self._goals_after(result)
            result._goals = self._achieved_text
        self._log.append((added, removed, pending, last, achieved, command))
        self.commands.append(command)
        self.turn += 1
        if not self.finished and len(self.achieved) == self._goal_count and self._goal_count:   # won
            result.done = True  # the step that wins; later steps are ordinary
            self.finished = True
        return result

    def _change(self, result: StepResult, before: State, single: bool) -> tuple:
        """(added, removed) by a turn other than one action alone (the scene's turn, "take all", a
        question): the scene plays its turn, and the goals follow the change. ``single``: the state
        is one action's, so its delta is the change unless the scene moved it too."""
        if self._scene is not None and self.lost is None:
            if self._scene_turn(result):
                single = False
        state = self.state
        if state is before:
            return _NONE, _NONE
        delta = state.delta
        added, removed = delta if single and delta is not None else before.diff(state)
        result.changed = True
        goal_facts = self._goal_facts
        if not (goal_facts.isdisjoint(added) and goal_facts.isdisjoint(removed)):
            self._goals_after(result)
        return added, removed

    def _goals_after(self, result: StepResult) -> None:
        """The goals after a step that touched a goal's fact (apart from ``step``: its loop would cost
        every step a frame)."""
        over, known = self.state.over, self.state.known   # State.has, written out per goal
        achieved, texts = [], []
        for goal, fact, positive, text in self._goal_rows:
            if (over[fact] if fact in over else fact in known) == positive:
                achieved.append(goal)
                texts.append(text)
        texts.sort()
        result.goal_score = len(achieved) - len(self.achieved)
        self._achieved_text = texts
        self.achieved = frozenset(achieved)

    def _scene_turn(self, result: StepResult) -> bool:
        """After every command, the scene's turn: its lines follow the command's own text. True when the
        scene changed the state (the turn's change is then more than its action's)."""
        out = self.world.scene.after_turn(self.state, result.action if result.fail is None else None, result.args,
                                          self.turn + 1)
        moved = out.state is not self.state
        self.state = out.state
        lines = [result.observation] + out.lines + ([out.lost] if out.lost else [])
        result.observation = "\n".join(line for line in lines if line)
        result.scene = out.log
        if out.lost is not None:
            result.lost = self.lost = out.lost
        return moved

    def scene_call(self, character: str, tool: str):
        """A voiced character's model calls one of its tools after the last turn: the change is part
        of that turn (undo takes both back), and the goals follow it. Returns the scene's Aftermath."""
        out = self.world.scene.call(self.state, character, tool, self.turn)
        if out.state is self.state:
            return out
        if self._log:
            u = self._log[-1]
            before = self.state.apply(set(u[_REMOVED]), set(u[_ADDED]))
            self._log[-1] = before.diff(out.state) + u[_PENDING:]
        self.state = out.state
        self.achieved = frozenset(g for g in self.world.goals if g.holds(self.state))
        self._achieved_text = sorted(str(g) for g in self.achieved)
        if self.world.goals and len(self.achieved) == len(self.world.goals):
            self.finished = True
        return out

    def _parsed(self, command: str, parsed) -> tuple:
        """(action, env) for a command that parsed to one action; else (None, the turn's result): a
        question, a failure to parse, or every thing of "take all" tried in turn. ``parsed``: the
        command as ``step`` parsed it, None when a question was pending (``step`` parsed nothing)."""
        self._single = True
        if parsed is None:
            st = self.state
            if self.pending is not None:
                parsed = self.parser.answer(command, self.pending, st, self.last)
                self.pending = None
            if parsed is None:
                parsed = self.parser.parse(command, st, self.last)
        if type(parsed) is not Parsed:
            if isinstance(parsed, Question):
                self.pending = parsed
                return None, StepResult(command, parsed.message, {"phase": "parsing", "type": "ambiguous"})
            if isinstance(parsed, Failure):
                return None, StepResult(command, parsed.message, {"phase": parsed.phase, "type": parsed.type})
            assert isinstance(parsed, Parsed)
        if parsed.all_slot:
            return None, self._run_all(command, parsed)
        return parsed.action, parsed.env

    def _run_all(self, command: str, parsed: Parsed) -> StepResult:
        self._single = False
        action, slot = parsed.action, parsed.all_slot
        lines, ok = [], False
        first_fail = None
        for item in parsed.env[slot]:
            env = dict(parsed.env)
            env[slot] = item
            new, message, fail_type = action.attempt(self.state, env)
            lines.append(f"{self.world.name_of(item)}: {message}")
            if fail_type is None:
                self.state, ok = new, True
            elif first_fail is None:
                first_fail = fail_type
        self.last = list(parsed.env[slot])
        fail = None if ok else {"phase": "resolution", "type": first_fail or "nothing"}
        return StepResult(command, "\n".join(lines), fail, action=action.id, args={slot: list(parsed.env[slot])})

    def play(self, command: str) -> list:
        """``step``, for a caller that reads the turn's outcome and not a ``StepResult`` (a trainer's
        environment): the same change to the game (state, turn, "it", undo record, goals), returned as
        a known-turn record (see ``NEXT``). A turn from a state by a command is the same every time
        when no question is pending, no scene plays and the command names no pronoun (and is not
        "take all"), so it is remembered in the state's cache and played again without a parse,
        an action's step or a result made (a random walk's states and commands recur)."""
        if type(command) is not str:
            command = str(command)
        if self.pending is None:
            rec = self.state.cache.get((_PLAYED, command))
            if rec is not None:
                last = self.last
                x = rec[NAMED]
                if x is not None and (not last or last[0] != x or len(last) > 3):
                    self.last = _first(x, last)
                self._log.append((rec[ADDED], rec[REMOVED], None, last, self.achieved, command))
                self.commands.append(command)
                self.turn += 1
                self.state = rec[NEXT]
                self.achieved = achieved = rec[ACHIEVED]
                self._achieved_text = rec[ACHIEVED_TEXT]
                if not self.finished and len(achieved) == self._goal_count and self._goal_count:
                    self.finished = True   # the step that wins: done, this time
                    return rec[:DONE] + [True] + rec[DONE + 1:]
                return rec
        pending, last, before = self.pending, self.last, self.state
        self._single = True
        result = self.step(command)
        action = self.world.action_by_id.get(result.action) if result.action is not None else None
        done = result.fail is None and action is not None and action.ends   # the action's own, not the win's
        rec = [self.state, result.text, done, result.fail is None and result.action == "done", None,
               *self._log[-1][:2], self.achieved, self._achieved_text, result.goal_score, None, None]
        if (pending is None and self.pending is None and self._scene is None and action is not None
                and self._single and type(self.parser) is CommandParser
                and (_NO_PRONOUN.get(command) or _names_no_pronoun(command))):
            named = self.last
            if named is not last:
                rec[NAMED] = named[0]
            elif last:   # unchanged: the action named no thing, or the first of "it" again
                for p in action.thing_params:
                    x = result.args.get(p)
                    if isinstance(x, str):
                        rec[NAMED] = x
                        break
            # bounded as the step's memos are: the action's step wrote to (or read a memo in) this cache,
            # so the world's transition memo lists it and empties it with the rest past its limit
            before.cache[(_PLAYED, command)] = rec
        if result.done != done:
            return rec[:DONE] + [result.done] + rec[DONE + 1:]
        return rec

    # time travel ---------------------------------------------------------
    def undo(self, turns: int = 1) -> int:
        """Go back ``turns`` turns (as far as possible); returns how many were undone."""
        n = 0
        while n < turns and self._log:
            u = self._log.pop()
            self.state = self.state.apply(set(u[_REMOVED]), set(u[_ADDED]))
            self.pending = u[_PENDING]
            self.last = u[_LAST]
            self.achieved = u[_ACHIEVED]
            self._achieved_text = sorted(str(g) for g in u[_ACHIEVED])
            self.commands.pop()
            self.turn -= 1
            n += 1
        self.finished = self.all_goals_achieved()
        self.lost = self.lost if any(f[0] == "lost" for f in self.state.facts) else None
        return n

    def goto_turn(self, turn: int) -> None:
        if turn < self.turn:
            self.undo(self.turn - turn)

    def restart(self) -> None:
        self.__init__(self.world)

    def set_state(self, st: State, commands: list[str] | None = None) -> None:
        """Jump to a saved state (history before it is not kept: undo stops there)."""
        self.state = st
        self.pending = None
        self.last = []
        self._log = []
        self.commands = list(commands or [])
        self.turn = len(self.commands)
        self.achieved = frozenset(g for g in self.world.goals if g.holds(st))
        self._achieved_text = sorted(str(g) for g in self.achieved)
        self.finished = self.all_goals_achieved()
        self.lost = self.lost if any(f[0] == "lost" for f in self.state.facts) else None

    def facts(self) -> list[str]:
        return sorted(format_fact(f) for f in self.state.facts)
