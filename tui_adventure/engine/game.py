"""One playthrough of a world: commands in, observations and goal changes out.

The engine applies every command it is given and never decides that a game is
over: a win or a ``done`` only sets ``done`` on that step. Turn limits, abort
rules and scoring belong to the episode loop above it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, NamedTuple

from .facts import State, format_fact
from .parsers import CommandParser, Failure, Parsed, Question
from .text import Later
from .world import World

if TYPE_CHECKING:
    from .scenes import Scene


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


class Turn(NamedTuple):
    """What one turn did, as ``Game.play`` returns it. A turn from a state by a command is the same every
    time when no question is pending, no scene plays and the command names no pronoun (nor "take all"):
    such a turn is kept in the state's cache, bounded as the actions' step memos are, and played again
    from there."""

    state: State                 # the state after the turn
    text: object                 # the observation: a str, or a text.Later rendered when first read
    done: bool                   # the action ends the game, or the turn won it
    ended: bool                  # the command was ``done``
    named: str | None            # the thing "it" names first after the turn, when the command named one
    added: frozenset             # the facts the turn added
    removed: frozenset           # and removed
    achieved: frozenset          # the goals achieved after it
    achieved_text: list          # their texts, sorted (never changed in place)
    goal_score: int              # the change in the number of goals achieved


# a known turn's key in a state's cache
_PLAYED = object()

# A turn's undo record, a tuple: (added, removed, pending, last, achieved, command); ``added`` and
# ``removed`` are the step's change, ``pending``, ``last`` and ``achieved`` what they were before it.
_ADDED, _REMOVED, _PENDING, _LAST, _ACHIEVED = range(5)


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
        self._single = True   # the last turn's change is one action's (see _change)
        self._known: tuple | None = None    # (cache, key) of the known turn ``play`` played last, for ``settle``
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
        # The usual turn: one action applied to the state (else ``_parsed`` makes the turn's result).
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
                result = StepResult(command, message, {"phase": "resolution", "type": fail_type}, action=action.id,
                                    args=dict(env))
            else:
                self.state = new
                result = StepResult(command, message, None, action.ends, action=action.id, args=dict(env))
            if self._scene is not None:
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
            result.goals_achieved = list(self._achieved_text)
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
            if self._scene_turn(result, self._scene):
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
        """The goals after a step that touched a goal's fact: ``goal_score``, ``achieved`` and their texts."""
        over, known = self.state.over, self.state.known   # each goal read as State.has reads it
        achieved, texts = [], []
        for goal, fact, positive, text in self._goal_rows:
            if (over[fact] if fact in over else fact in known) == positive:
                achieved.append(goal)
                texts.append(text)
        texts.sort()
        result.goal_score = len(achieved) - len(self.achieved)
        self._achieved_text = texts
        self.achieved = frozenset(achieved)

    def _scene_turn(self, result: StepResult, scene: Scene) -> bool:
        """After every command, the scene's turn: its lines follow the command's own text. True when the
        scene changed the state (the turn's change is then more than its action's). ``scene``: the world's."""
        out = scene.after_turn(self.state, result.action if result.fail is None else None, result.args,
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
        scene = self.world.scene
        assert scene is not None   # a voiced character is a scene's
        out = scene.call(self.state, character, tool, self.turn)
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

    def play(self, command: str) -> Turn:
        """``step``, for a caller that reads the turn's outcome and not a ``StepResult`` (a trainer's
        environment): the same change to the game (state, turn, "it", undo record, goals), returned as
        a ``Turn``; a turn that is the same every time (see ``Turn``) is played again from the state's
        cache without a parse, an action's step or a result made."""
        if type(command) is not str:
            command = str(command)
        self._known = None
        if self.pending is None:
            key = (_PLAYED, command)
            cache = self.state.cache
            rec = cache.get(key)
            if rec is not None:
                last = self.last
                x = rec.named
                if x is not None and (not last or last[0] != x or len(last) > 3):
                    self.last = _first(x, last)
                self._log.append((rec.added, rec.removed, None, last, self.achieved, command))
                self.commands.append(command)
                self.turn += 1
                self.state = rec.state
                self.achieved = achieved = rec.achieved
                self._achieved_text = rec.achieved_text
                self._known = (cache, key)
                if not self.finished and len(achieved) == self._goal_count and self._goal_count:
                    self.finished = True   # the step that wins: done, this time
                    return rec._replace(done=True)
                return rec
        pending, last, before = self.pending, self.last, self.state
        self._single = True
        result = self.step(command)
        action = self.world.action_by_id.get(result.action) if result.action is not None else None
        done = result.fail is None and action is not None and action.ends   # the action's own, not the win's
        named = None
        known = (pending is None and self.pending is None and self._scene is None and action is not None
                 and self._single and type(self.parser) is CommandParser and self.parser.names_no_pronoun(command))
        if known:
            if self.last is not last:
                named = self.last[0]
            elif last and action is not None:   # unchanged: the action named no thing, or the first of "it" again
                for p in action.thing_params:
                    x = result.args.get(p)
                    if isinstance(x, str):
                        named = x
                        break
        added, removed = self._log[-1][:2]
        rec = Turn(self.state, result.text, done, result.fail is None and result.action == "done", named,
                   added, removed, self.achieved, self._achieved_text, result.goal_score)
        if known:
            # bounded as the step's memos are: the action's step wrote to (or read a memo in) this cache,
            # so the world's transition memo lists it and empties it with the rest past its limit
            key = (_PLAYED, command)
            before.cache[key] = rec
            self._known = (before.cache, key)
        if result.done != done:
            return rec._replace(done=result.done)
        return rec

    def settle(self, canonical: State) -> None:
        """Go on from ``canonical``, a state equal to the game's (the one a caller's memo met first, as
        the Gymnasium env's admissible commands do): the last turn played, when kept, leads to it from
        now on, and the state reached by this new way is let go."""
        reached = self.state
        if canonical is reached:
            return
        self.state = canonical
        known, self._known = self._known, None
        if known is not None:
            cache, key = known
            rec = cache.get(key)
            if rec is not None and rec.state is reached:
                cache[key] = rec._replace(state=canonical)
                text = rec.text
                if type(text) is Later and text.next is reached:   # the step's memo leads there too
                    text.next = canonical

    def snapshot(self) -> tuple:
        """What ``restore`` needs to bring the game back to this moment (immutable)."""
        return (self.state, self.turn, self.pending, tuple(self.last), self.achieved, self.finished)

    def restore(self, moment: tuple) -> None:
        """Back to a ``snapshot``'s moment (history before it is not kept: undo stops there)."""
        st, turn, pending, last, achieved, finished = moment
        self.set_state(st)
        self.turn, self.pending, self.last = turn, pending, list(last)
        self.achieved, self.finished = achieved, finished
        self._achieved_text = sorted(str(g) for g in achieved)

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

    def restart(self) -> None:
        Game.__init__(self, self.world)

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
