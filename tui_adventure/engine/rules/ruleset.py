"""Rulesets: actions declared as data, compiled per world into closures.

A ruleset file names its ``style`` (the Python side that knows how to see,
describe and parse for that family of games), ``define``s derived predicates
as macros, and lists ``actions``. Each action has ``syntax`` patterns with
``{slots}``, ``params`` (slot kinds), ordered ``checks`` (condition, failure
message, fail type: the first that fails is what the player reads),
``effects``, and a ``success`` text. Worlds may append actions of their own.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Callable

from ..facts import State
from .action_syntax import checked_syntax
from .recent import RuleTables
from .generated import shared
from .logic import MEMO_STATES, Atom, Compiler, LogicError, Memo, forget, parse_condition, parse_effects
from .logic_ast import Cond, effect_predicates, expanded_predicates, names_in
from ..text import Later, TemplateError, compile_template
from ..yamlpos import Pos, SourceError, SourceErrors, key_pos_of, load_yaml, pos_of

_KEY_HEADS = itertools.count(1)   # an Action's memo keys' head: an int, so the cyclic collector untracks a key
RULESET_DIR = Path(__file__).resolve().parents[2] / "rulesets"
ACTION_KEYS = {"id", "syntax", "params", "checks", "effects", "success", "ends", "info",
               "all", "all_where", "plan", "plan_if"}
PARAM_KINDS = {"thing", "room", "dir", "word"}


@dataclass(eq=False)
class ActionSpec:
    """One action as its file declares it. Compared and hashed by identity: the worlds of its ruleset
    key what they compile of it by the spec itself (``RuleTables``). Never changed after it is read."""

    id: str
    syntax: list[str]
    params: dict[str, str]
    checks: list[tuple[str, str, str]]
    effects: list[str]
    success: str
    ends: bool = False
    info: bool = False
    all_slot: str | None = None
    all_where: str | None = None
    plan: object = True  # False: an alias the planner skips; "goal": only when it achieves a goal fact;
    #                      "goal_object": only on a thing an unmet goal names
    plan_if: str | None = None  # with plan "goal": also planned, goal or not, when this holds
    source: str = ""
    pos: Pos | None = None

    @cached_property
    def definition(self) -> tuple:
        """(what decides whether it compiles, for ``RuleTables.compiled``; its parameters; those that are
        things, which "it" may name)."""
        params = tuple(self.params)
        text = (self.id, tuple(self.syntax), tuple(self.params.items()), tuple(self.checks), tuple(self.effects),
                self.success, self.all_where, self.plan_if)
        return text, params, tuple(p for p in params if self.params[p] == "thing")

    @cached_property
    def changes(self) -> frozenset | None:
        """The predicates its effects change (None: an effect does not parse)."""
        try:
            return frozenset(effect_predicates([a for e in self.effects for a in parse_effects(e)]))
        except LogicError:
            return None


@dataclass
class RulesetSpec:
    name: str
    style: str
    macros: dict[str, tuple[tuple[str, ...], Cond]]
    actions: list[ActionSpec]
    options: dict = field(default_factory=dict)
    path: str = ""
    # what the worlds of this ruleset share of its compiled rules, for as long as the ruleset is held
    tables: RuleTables = field(default_factory=RuleTables, compare=False, repr=False)


def ruleset_path(name: str, base: Path | None = None) -> Path:
    if (RULESET_DIR / f"{name}.yaml").exists():
        return RULESET_DIR / f"{name}.yaml"
    if name.endswith((".yaml", ".yml")):
        p = Path(name)
        return p if p.is_absolute() or base is None else base / p
    return RULESET_DIR / f"{name}.yaml"


_CACHE: dict[str, RulesetSpec] = {}   # a ruleset file's path -> its spec (at most RULESET_FILES)
RULESET_FILES = 256
_PACKAGED: dict[str, RulesetSpec] = {}   # a packaged ruleset's name -> it: a world per reset looks for no file


def load_ruleset(name: str, base: Path | None = None) -> RulesetSpec:
    hit = _PACKAGED.get(name)
    if hit is not None:
        return hit
    path = ruleset_path(name, base)
    key = str(path)
    if key not in _CACHE:
        if len(_CACHE) >= RULESET_FILES:
            _CACHE.clear()
        if not path.exists():
            raise FileNotFoundError(str(path))
        data = load_yaml(path.read_text(encoding="utf-8"), str(path))
        _CACHE[key] = parse_ruleset(data, str(path))
    if path.parent == RULESET_DIR and path.name == f"{name}.yaml":
        _PACKAGED[name] = _CACHE[key]
    return _CACHE[key]


def parse_ruleset(data, path: str) -> RulesetSpec:
    errors: list[SourceError] = []
    if not isinstance(data, dict):
        raise SourceErrors([SourceError(path, None, "a ruleset file is a mapping with name, style and actions")])
    macros = {}
    defines = data.get("define") or {}
    for head, body in defines.items():
        try:
            ast = parse_condition(head)
            if not isinstance(ast, Atom):
                raise LogicError(f"a definition's head is pred(args), not {head!r}")
            macros[ast.pred] = (ast.args, parse_condition(str(body)))
        except LogicError as exc:
            errors.append(SourceError(path, key_pos_of(defines, head), str(exc)))
    actions = parse_actions(data.get("actions") or [], path, errors)
    if errors:
        raise SourceErrors(errors)
    options = {k: v for k, v in data.items() if k not in ("name", "style", "define", "actions", "extends")}
    style = data.get("style")
    if data.get("extends"):
        # a variant: the base ruleset with some actions replaced (by id) or added
        base = load_ruleset(str(data["extends"]), Path(path).parent)
        mine = {a.id: a for a in actions}
        actions = [mine.pop(a.id, a) for a in base.actions] + list(mine.values())
        macros = {**base.macros, **macros}
        options = {**base.options, **options}
        style = style or base.style
    return RulesetSpec(name=str(data.get("name", Path(path).stem)), style=str(style or "classic"),
                       macros=macros, actions=actions, options=options, path=path)


def parse_actions(items, path: str, errors: list[SourceError]) -> list[ActionSpec]:
    """Read action entries, collecting every mistake rather than stopping at the first."""
    out: list[ActionSpec] = []
    if not isinstance(items, list):
        errors.append(SourceError(path, getattr(items, "pos", None), "actions must be a list"))
        return out
    for i, item in enumerate(items):
        where = pos_of(items, i)
        if not isinstance(item, dict) or "id" not in item:
            errors.append(SourceError(path, where, "each action is a mapping with at least an id"))
            continue
        unknown = set(item) - ACTION_KEYS
        for k in sorted(unknown):
            errors.append(SourceError(path, key_pos_of(item, k),
                                      f"unknown action key {k!r} (known: {', '.join(sorted(ACTION_KEYS))})"))
        params = dict(item.get("params") or {})
        syntax = checked_syntax(item, params, path, errors)
        for slot, kind in params.items():
            if kind not in PARAM_KINDS:
                errors.append(SourceError(path, pos_of(item.get("params"), slot),
                                          f"parameter {slot!r} has kind {kind!r}; use one of {', '.join(sorted(PARAM_KINDS))}"))
        checks = []
        for j, chk in enumerate(item.get("checks") or []):
            cpos = pos_of(item.get("checks"), j)
            if isinstance(chk, dict):
                chk = [chk.get("if"), chk.get("else"), chk.get("type")]
            if not isinstance(chk, list) or len(chk) not in (2, 3) or not chk[0]:
                errors.append(SourceError(path, cpos, "a check is [condition, failure message] or [condition, message, fail_type]"))
                continue
            checks.append((str(chk[0]), str(chk[1]), str(chk[2]) if len(chk) == 3 and chk[2] else "precondition"))
            try:
                parse_condition(str(chk[0]))
            except LogicError as exc:
                errors.append(SourceError(path, cpos, str(exc)))
        effects = item.get("effects") or []
        if isinstance(effects, str):
            effects = [effects]
        for j, eff in enumerate(effects):
            try:
                parse_effects(str(eff))
            except LogicError as exc:
                errors.append(SourceError(path, pos_of(effects, j), str(exc)))
        out.append(ActionSpec(
            id=str(item["id"]), syntax=[str(s) for s in syntax], params=params, checks=checks,
            effects=[str(e) for e in effects], success=str(item.get("success", "")),
            ends=bool(item.get("ends", False)), info=bool(item.get("info", False)),
            all_slot=item.get("all"), all_where=item.get("all_where"), plan=_plan_flag(item.get("plan", True)), plan_if=item.get("plan_if"),
            source=path, pos=where))
    return out


def _check_shape(cond_text: str, bound: frozenset, compiler: Compiler) -> tuple[frozenset, frozenset, bool]:
    """The bound names a check uses, the predicates it reads (macros expanded), whether it reads
    the player's room: a ruleset's own, so worked out once (``RuleTables.checks``), not for every
    world that loads it."""
    key = (cond_text, bound)
    hit = compiler.tables.checks.get(key)
    if hit is None:
        ast = parse_condition(cond_text)
        macros = compiler.macros
        hit = (frozenset(names_in(ast) & bound), frozenset(expanded_predicates(ast, macros)), _mentions_here(ast, macros))
        compiler.tables.checks.put(key, hit)
    return hit


def _mentions_here(ast, macros) -> bool:
    """Whether a condition reads the player's room, directly or through a macro."""
    if "here" in names_in(ast):
        return True
    return any(_mentions_here(macros[p][1], macros) for p in expanded_predicates(ast, {}) if p in macros)


def _plan_flag(value):
    return value if value in ("goal", "goal_object") else bool(value)


class Action:
    """One compiled action: run its checks in order, then its effects."""

    __slots__ = ("spec", "id", "params", "checks", "effect", "success", "ends", "info",
                 "all_where", "slot_checks", "order", "allowed", "where", "memo", "plan_if", "stepper",
                 "thing_params", "where_key", "_later", "_making", "key_head")

    def __init__(self, spec: ActionSpec, compiler: Compiler, names: Callable, types: Callable,
                 functions: dict, static: tuple | None = None, where: Callable | None = None,
                 memo: list | None = None, where_key: tuple | None = None, shape: tuple | None = None,
                 lazy: bool = False) -> None:
        """``where(st)``: the player's room; ``where_key``, when the style has one, the by-first index
        key whose entry's first item is that room (read by the generated step); ``shape``:
        ``_shape(compiler, functions)``, when the caller made it already; ``lazy``: its messages are
        bound to this world's names when first rendered, if its definition compiled before in a world
        of this ruleset and shape (``RuleTables.compiled``; a rule error is reported at load)."""
        self.spec = spec
        self.where = where or _nowhere
        self.where_key = where_key
        self.memo: list = memo if memo is not None else Memo()
        self.id = spec.id
        definition, self.params, self.thing_params = spec.definition   # thing_params: what "it" may name
        self.ends = spec.ends
        self.info = spec.info
        # ``stepper(action, st, env)``: the step ``attempt_later`` calls, a plain function kept unbound (a
        # bound method kept on its own object would be a reference cycle)
        self.stepper = Action._first_attempt   # the generated step, made when first tried
        self.key_head = next(_KEY_HEADS)   # its memo keys' head (see Steps)
        self._making: tuple | None = (compiler, names, types, functions, static)   # None: compiled
        key = (definition, shape or _shape(compiler, functions))
        known = lazy and compiler.tables.compiled.get(key) is not None
        self._compile(later=known)
        if not known:
            compiler.tables.compiled.put(key, True)

    def _compile(self, later: bool = False) -> None:
        """``later``: its definition compiled before in a world of this ruleset and shape, so its
        messages are bound to this world's names when first rendered (``compile_template``)."""
        assert self._making is not None   # compiled once, from __init__
        compiler, names, types, functions, static = self._making
        self._making = None
        spec = self.spec
        bound = frozenset(self.params) | {"here"}   # the player's room, set before every evaluation
        checks = []
        asts = []
        for cond_text, message, fail_type in spec.checks:
            ast = parse_condition(cond_text)
            asts.append(ast)
            cond = compiler.condition(cond_text, bound, origin=f"action {spec.id}, check {cond_text}")
            render = compile_template(message, names, types, functions, set(bound) | {"prep"}, later)
            checks.append((cond, render, fail_type, frozenset(names_in(ast) & bound) - {"here"}))
        self.checks = checks
        self.effect = compiler.effects(spec.effects, bound, origin=f"action {spec.id}, effects") if spec.effects else None
        self.success = compile_template(spec.success, names, types, functions, set(bound) | {"prep"}, later)
        self.all_where = compiler.condition(spec.all_where, bound) if spec.all_where else None
        self.plan_if = compiler.condition(spec.plan_if, bound) if spec.plan_if else None
        # For grounding: checks of one parameter over facts no effect ever changes are
        # decided once, at load, as a set of allowed values ("put_in: dst is a container").
        allowed: dict[str, frozenset] = {}
        static_checks: set[int] = set()
        if static is not None:
            dynamic, builtins, initial, domain = static
            for i, (cond_text, _m, _t) in enumerate(spec.checks):
                used, preds, here = _check_shape(cond_text, bound, compiler)
                if len(used) == 1 and "here" not in used and not here and not (preds & dynamic) and not (preds & builtins):
                    (p,) = used
                    cond = checks[i][0]
                    ok = frozenset(x for x in domain if cond(initial, {p: x}))
                    allowed[p] = allowed.get(p, ok) & ok
                    static_checks.add(i)
        self.allowed = allowed
        # Which remaining checks can run once the first k parameters are bound.
        self.order = self.params
        slot_checks = []
        seen: set = set()
        live = [c for i, c in enumerate(checks) if i not in static_checks]
        for p in self.order:
            seen.add(p)
            slot_checks.append([c[0] for c in live if c[3] <= seen and p in c[3]])
        slot_checks.append([c[0] for c in live if not c[3]])
        self.slot_checks = slot_checks
        self._later: tuple | None = (compiler, asts, bound)   # None: its step is made

    def _first_attempt(self, st: State, env: dict) -> tuple:
        """``attempt_later`` compiled on its first call, then called: a world made for one episode (a
        Gymnasium env's ``generate=`` reset) compiles only the actions it tries."""
        assert self._later is not None   # the first attempt replaces itself (``stepper``)
        compiler, asts, bound = self._later
        spec = self.spec
        key = (spec, self.where_key, compiler.shape())   # the spec decides the rule, its bound names
        step = compiler.tables.steps.get(key)
        if step is None:
            step = compiler.attempt(asts, tuple(spec.effects or ()), bound, self.params, self.where_key,
                                    origin=f"action {spec.id}")
            if shared(compiler, step):
                compiler.tables.steps.put(key, step)
        self.stepper = step
        self._later = None
        return step(self, st, env)

    def attempt_later(self, st: State, env: dict) -> tuple:
        """(next state, message, fail type or None), the message rendered when read (see below)."""
        return self.stepper(self, st, env)

    def attempt(self, st: State, env: dict) -> tuple[State, str, str | None]:
        """(next state, message, fail type or None). The state is unchanged on failure."""
        new, text, fail_type = self.attempt_later(st, env)
        return new, str(text), fail_type

    # ``attempt_later(st, env) -> (next state, message, fail type or None)``: as ``attempt``, the message
    # left unrendered until it is read (``str(text)``); the ruleset's generated function for the action
    # (see ``Compiler.attempt``), kept on it (``stepper``) on the first try: it reads the world's own parts
    # from the action it is called with (``logic.Steps``). Memoised in the state's own cache on the arguments (the
    # message alone, holding the outcome: ``Later.next``, ``Later.fail``): states are immutable and rules
    # deterministic, and a replay of a world meets the very state objects a memo hit handed out before, so
    # no state is hashed. ``memo`` (one list per world) holds the caches written to (see ``forget``).

    def _failed(self, st: State, env: dict, key: tuple, cache: dict, i: int) -> tuple:
        """``attempt_later``'s end when check ``i`` failed."""
        _cond, render, fail_type, _ = self.checks[i]
        text = Later(render, st, env, None, fail_type)
        self._remember(cache, key, text)
        return st, text, fail_type

    def _slow(self, st: State, env: dict, key: tuple, cache: dict) -> tuple:
        """``attempt_later``'s end for effects its source does not write itself: they fill the sets and
        the state advances by them."""
        adds: set = set()
        dels: set = set()
        assert self.effect is not None   # called only for an action with effects
        self.effect(st, env, adds, dels)
        new = st.advance(adds, dels)
        text = Later(self.success, new, env, new if new is not st else None)
        self._remember(cache, key, text)
        return new, text, None

    def _remember(self, cache: dict, key: tuple, kept: Later) -> None:
        if len(self.memo) >= MEMO_STATES:  # one list per world, shared by its actions: bounded memory
            forget(self.memo)
        cache[key] = kept
        self.memo.append(cache)

    def successor(self, st: State, env: dict) -> State:
        """The next state, checks assumed already passed (the planner's successors)."""
        if self.effect is None:
            return st
        env["here"] = self.where(st)
        adds: set = set()
        dels: set = set()
        self.effect(st, env, adds, dels)
        return st.apply(adds, dels)

    def ground(self, st: State, domains: dict[str, Callable]) -> list[dict]:
        """Every binding of the parameters for which all checks pass in ``st``."""
        start = {"here": self.where(st)}
        for cond in self.slot_checks[-1]:
            if not cond(st, start):
                return []
        out: list[dict] = []
        _bindings(st, self.order, 0, start, [domains[self.spec.params[p]] for p in self.order], self.allowed,
                  self.slot_checks, out)
        return out


def _bindings(st, params, k: int, env: dict, domains: list, allowed: dict, slot_checks: list, out: list) -> None:
    """Append to ``out`` every binding of ``params[k:]`` on top of ``env`` whose checks pass."""
    if k == len(params):
        out.append(dict(env))
        return
    p = params[k]
    ok = allowed.get(p)
    checks = slot_checks[k]
    for value in domains[k](st):
        if ok is not None and value not in ok:
            continue
        env[p] = value
        for cond in checks:
            if not cond(st, env):
                break
        else:
            _bindings(st, params, k + 1, env, domains, allowed, slot_checks, out)
    env.pop(p, None)


def _nowhere(st) -> None:
    return None


def _shape(compiler: Compiler, functions: dict) -> tuple:
    """What of a world, beside its ruleset (whose tables key by it), decides whether a definition
    compiles: builtins and text functions by name."""
    return compiler.builtin_names, frozenset(functions)


def _changed_predicates(specs: list[ActionSpec]) -> frozenset | None:
    """What the actions' effects change (None: an effect does not parse)."""
    changed: set = set()
    for spec in specs:
        if spec.changes is None:
            return None
        changed |= spec.changes
    return frozenset(changed)


def compile_actions(specs: list[ActionSpec], compiler: Compiler, names: Callable, types: Callable,
                    functions: dict, initial: State | None = None, where: Callable | None = None,
                    where_key: tuple | None = None, lazy: bool = False) -> list[Action]:
    out = []
    errors = []
    static = None
    memo = Memo()
    dynamic = _changed_predicates(specs)
    compiler.changing = dynamic   # see Compiler.changing
    if initial is not None:
        if dynamic is not None:
            static = (dynamic, compiler.builtin_names, initial, compiler.domain)
    shape = _shape(compiler, functions)
    for spec in specs:
        try:
            out.append(Action(spec, compiler, names, types, functions, static, where, memo, where_key, shape, lazy))
        except (LogicError, TemplateError) as exc:
            errors.append(SourceError(spec.source, spec.pos, f"action {spec.id!r}: {exc}"))
    if errors:
        raise SourceErrors(errors)
    return out
