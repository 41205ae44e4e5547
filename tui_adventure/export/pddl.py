"""A world as PDDL (``domain.pddl`` + ``problem.pddl``), so an off-the-shelf optimal planner can check our par.

Only the moves our planner searches become PDDL actions, each of cost 1, and
the goal is the world's goal facts, so an optimal PDDL plan is exactly as long
as our par. What our engine knows only in Python becomes explicit:

- ``here`` (the player's room) is an extra parameter ``?here`` pinned by
  ``(at player ?here)``;
- a ``thing`` parameter binds only what the player can see: the derived
  predicate ``visible``; ``room`` and ``dir`` parameters bind only the exits
  of ``here``: an ``exit`` precondition;
- the built-in ``encloses`` (containment at any depth) is a recursive derived
  predicate: PDDL has no bounded unrolling that stays exact when containers
  are carried into containers, and Fast Downward evaluates axioms natively;
- ``define:`` macros (``closed(x)``) are expanded inline, as our compiler does;
- a quantifier ranges over every world id unless a conjunct of its body
  names facts that list its values (``exists d: via(here, dir, d)``), as in
  our compiler: typed ``entity`` in the first case, ``object`` in the second.

``count(...)`` and ordering comparisons of names need numbers PDDL lacks
(numeric fluents would do, but few optimal planners take them with ADL), so a
world that uses them in a move is refused with ``Inexpressible``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from ..engine.rules import (Add, And, Atom, Compare, Const, Count, Delete, Exists, ForEach, Forall, Not, Or, When,
                            conjuncts, fresh, parse_condition, parse_effects, substitute)
from ..engine.planning import planning_view
from ..engine.snapshot import write_atomic
from ..engine.styles.classic import ClassicStyle
from ..engine.styles.clembench import PLAYER as CLEM_PLAYER, ClembenchStyle
from ..engine.world import World

RESERVED = {"and", "or", "not", "imply", "exists", "forall", "when", "either", "object", "define", "domain",
            "problem", "entity", "label", "increase", "decrease", "assign", "minimize", "maximize"}
MACRO_DEPTH = 50   # a macro calling itself would never end; ours nest one or two deep

_VISIBLE = """(:derived (visible ?x - object)
    (or (held ?x)
        (exists (?r - object) (and (at {player} ?r) (at ?x ?r) (not (= ?x {player}))))
        (exists (?y - object) (and (visible ?y) (on ?x ?y)))
        (exists (?y - object) (and (visible ?y) (in ?x ?y) (or (not (openable ?y)) (open ?y))))))"""
_ENCLOSES = """(:derived (encloses ?o - object ?i - object)
    (or (in ?i ?o) (on ?i ?o) (at ?i ?o)
        (exists (?m - object) (and (encloses ?o ?m) (or (in ?i ?m) (on ?i ?m) (at ?i ?m))))))"""


class Inexpressible(ValueError):
    """A rule PDDL cannot say; the message names the action and the construct."""


@dataclass(frozen=True)
class Pddl:
    domain: str
    problem: str
    names: dict[str, str]     # world id -> PDDL name, for every id the translation had to change
    actions: tuple[str, ...]  # ids of the actions that became PDDL actions


def to_pddl(world: World) -> Pddl:
    """The world's domain and problem; ``Inexpressible`` when a move uses what PDDL cannot say."""
    return _Translator(world).run()


def write_pddl(world: World, out: str | Path) -> tuple[Path, Path]:
    """Write ``domain.pddl`` and ``problem.pddl`` into the folder ``out`` (made when missing)."""
    out = Path(out)
    if out.exists() and not out.is_dir():
        raise NotADirectoryError(f"{out} is a file, not a folder")
    pddl = to_pddl(world)
    out.mkdir(parents=True, exist_ok=True)
    paths = out / "domain.pddl", out / "problem.pddl"
    for path, text in zip(paths, (pddl.domain, pddl.problem)):
        write_atomic(path, text.encode("utf-8"))
    return paths


def _sanitise(name: str) -> str:
    out = re.sub(r"[^a-z0-9_-]+", "_", name.lower())
    if not out or not out[0].isalpha():
        out = "x" + out
    return out + "_" if out in RESERVED else out


@dataclass(frozen=True)
class _Profile:
    """What a ruleset style decides in Python (who the player is, what a parameter may bind), said in PDDL."""
    player: str
    derived: dict[str, str]        # built-in name -> its derived predicate (formatted with the player)
    slots: dict[str, str]          # parameter kind -> preconditions on {v}; a kind missing here never binds
    needs: tuple[tuple[str, int], ...]   # predicates the derived ones and the slots read
    always: tuple[str, ...] = ()   # derived predicates the slots use


_CLASSIC = _Profile(
    player="player",
    derived={"visible": _VISIBLE, "encloses": _ENCLOSES},
    slots={"thing": "(visible {v})", "room": "(exists (?exit_d - object) (exit ?here ?exit_d {v}))",
           "dir": "(exists (?exit_t - object) (exit ?here {v} ?exit_t))"},
    needs=(("held", 1), ("at", 2), ("on", 2), ("in", 2), ("openable", 1), ("open", 1), ("exit", 3)),
    always=("visible",),
)
# clembench's adventuregame: a thing is in sight when it is at the player's room (styles/clembench.py
# things_here); any room may be named; and only what a player can type is planned (ClembenchStyle.plannable:
# the first thing of a type, the floor of one room only), a static fact `nameable` here
_CLEMBENCH = _Profile(
    player=CLEM_PLAYER,
    derived={},
    slots={"thing": f"(at {{v}} ?here)\n      (not (= {{v}} {CLEM_PLAYER}))",
           "room": "(exists (?room_t - object) (room {v} ?room_t))"},
    needs=(("at", 2), ("room", 2), ("on", 2), ("in", 2), ("nameable", 1)),
)


class _Translator:
    def __init__(self, world: World) -> None:
        self.world = world
        style = world.style
        self.nameable: frozenset | None = None
        if isinstance(style, ClembenchStyle):
            self.profile = _CLEMBENCH
            self.nameable = frozenset(e for e in world.entities if style.nameable(e))
        elif isinstance(style, ClassicStyle):
            self.profile = _CLASSIC
        else:
            raise Inexpressible(f"ruleset {world.ruleset.name!r}: its style {world.ruleset.style!r}"
                                " has no PDDL translation (classic and clembench have)")
        self.macros = world.ruleset.macros
        self.builtins = set(world.style.builtins)
        self.entities = set(world.entities)
        self.names: dict[str, str] = {}
        self.taken: set[str] = set()
        self.preds: dict[tuple[str, int], str] = {}
        self.constants: set[str] = {self.profile.player}
        self.derived_used: set[str] = set(self.profile.always)
        self.action = ""
        self.count = 0
        for eid in world.entities:
            self.obj(eid)
        for fact in world.initial_facts:
            for arg in fact[1:]:
                self.obj(arg)
        for pred, arity in self.profile.needs:
            self.pred(pred, arity)

    # names -----------------------------------------------------------------
    def obj(self, name: str) -> str:
        hit = self.names.get(name)
        if hit is None:
            base = hit = _sanitise(name)
            n = 1
            while hit in self.taken:
                n += 1
                hit = f"{base}{n}"
            self.taken.add(hit)
            self.names[name] = hit
        return hit

    def pred(self, name: str, arity: int) -> str:
        key = (name, arity)
        hit = self.preds.get(key)
        if hit is None:
            hit = _sanitise(name)
            if any(k[0] == name for k in self.preds) or hit in self.preds.values():
                hit = f"{hit}_{arity}"   # PDDL has one arity per predicate
            self.preds[key] = hit
        return hit

    def var(self, name: str) -> str:
        self.count += 1
        return f"?{_sanitise(name.split('#')[0])}_{self.count}"

    def term(self, name: str, env: dict) -> str:
        if name in env:
            return env[name]
        self.constants.add(name)
        return self.obj(name)

    def refuse(self, what: str, why: str = "") -> Inexpressible:
        return Inexpressible(f"action {self.action!r}: {what} cannot be said in PDDL{why}")

    # conditions ------------------------------------------------------------
    def cond(self, node, env: dict, depth: int = 0) -> str:
        if isinstance(node, Const):
            return "(and)" if node.value else "(or)"
        if isinstance(node, Not):
            return f"(not {self.cond(node.body, env, depth)})"
        if isinstance(node, (And, Or)):
            parts = [self.cond(p, env, depth) for p in _chain(node, type(node))]
            return f"({'and' if isinstance(node, And) else 'or'} {' '.join(parts)})"
        if isinstance(node, Compare):
            if node.op not in ("==", "!="):
                raise self.refuse(f"{node.left} {node.op} {node.right}", " (names have no order there)")
            eq = f"(= {self.term(node.left, env)} {self.term(node.right, env)})"
            return eq if node.op == "==" else f"(not {eq})"
        if isinstance(node, Count):
            args = ", ".join(node.atom.args)
            raise self.refuse(f"count({node.atom.pred}({args})) {node.op} {node.number}", " without numeric fluents")
        if isinstance(node, (Exists, Forall)):
            v = self.var(node.var)
            inner = self.cond(node.body, {**env, node.var: v}, depth)
            if isinstance(node, Forall):
                return f"(forall ({v} - entity) {inner})"
            return f"(exists ({v} - {self.range(node.var, node.body)}) {inner})"
        if isinstance(node, Atom):
            return self.atom(node, env, depth)
        raise self.refuse(f"the construct {node!r}")

    def range(self, var: str, body) -> str:
        """``object`` when a conjunct lists the values (our compiler then reads them off the facts,
        whatever they are), else ``entity`` (our compiler then tries every world id)."""
        for atom in conjuncts(body):
            if not isinstance(atom, Atom) or atom.pred in self.builtins or atom.pred in self.macros:
                continue
            args = atom.args
            if len(args) >= 2 and ((args[0] != var and var in args[1:]) or (args[0] == var and args[1] != var)):
                return "object"
        return "entity"

    def atom(self, node: Atom, env: dict, depth: int) -> str:
        pred, args = node.pred, node.args
        if pred in self.macros:
            params, body = self.macros[pred]
            if len(params) != len(args) or depth > MACRO_DEPTH:
                raise self.refuse(f"the definition {pred}({', '.join(args)})", " (wrong arguments, or it expands without end)")
            return self.cond(substitute(fresh(body), dict(zip(params, args))), env, depth + 1)
        if pred in self.builtins:
            if pred not in self.profile.derived or "_" in args:
                raise self.refuse(f"the built-in {pred}({', '.join(args)})")
            self.derived_used.add(pred)
            return f"({pred} {' '.join(self.term(a, env) for a in args)})"
        name = self.pred(pred, len(args))
        if "_" not in args:
            return f"({name} {' '.join(self.term(a, env) for a in args)})".replace(" )", ")")
        free = [self.var("any") for a in args if a == "_"]
        it = iter(free)
        terms = " ".join(next(it) if a == "_" else self.term(a, env) for a in args)
        return f"(exists ({' '.join(free)} - object) ({name} {terms}))"

    # effects ---------------------------------------------------------------
    def effect(self, node, env: dict, params: list, conds: list, out: list) -> None:
        """Flattened to (forall variables, conditions, literal): nested ``when`` inside ``forall``
        is not ADL, and one literal per line reads well."""
        if isinstance(node, (Add, Delete)):
            atom = node.atom
            if isinstance(node, Add) and "_" in atom.args:
                raise self.refuse(f"add {atom.pred}(..., _, ...)")
            extra = [self.var("any") for a in atom.args if a == "_"]
            it = iter(extra)
            terms = " ".join(next(it) if a == "_" else self.term(a, env) for a in atom.args)
            lit = f"({self.pred(atom.pred, len(atom.args))} {terms})".replace(" )", ")")
            out.append((params + [(v, "object") for v in extra], conds, lit if isinstance(node, Add) else f"(not {lit})"))
        elif isinstance(node, When):
            self.effect(node.effect, env, params, conds + [self.cond(node.cond, env)], out)
        elif isinstance(node, ForEach):
            v = self.var(node.var)
            inner = {**env, node.var: v}
            self.effect(node.effect, inner, params + [(v, self.range(node.var, node.where))],
                        conds + [self.cond(node.where, inner)], out)
        else:
            raise self.refuse(f"the effect {node!r}")

    # actions ---------------------------------------------------------------
    def moves(self) -> tuple[list, list[str]]:
        """Exactly the actions our planner searches (planner.Planner: an effect, not ending the game,
        not plan: false, not left out as useless by planning_view), and why the others are not here."""
        view = planning_view(self.world)
        kept, notes = [], []
        for action in self.world.actions:
            spec = action.spec
            if action.effect is None or action.ends or not spec.plan or spec.id in view.skipped:
                why = ("ends the game" if action.ends else "changes nothing" if action.effect is None
                       else "plan: false" if not spec.plan else "its effects cannot help any goal")
                notes.append(f"{spec.id}: not a move ({why})")
            elif any(kind not in self.profile.slots for kind in spec.params.values()):
                notes.append(f"{spec.id}: never planned (a parameter of kind word binds nothing)")
            else:
                kept.append(spec)
        return kept, notes

    def action_text(self, spec) -> str:
        self.action = spec.id
        env = {"here": "?here"}
        for p in spec.params:
            env[p] = f"?{_sanitise(p)}"
        pre = [f"(at {self.obj(self.profile.player)} ?here)"]
        for p, kind in spec.params.items():
            pre.append(self.profile.slots[kind].format(v=env[p]))
        if self.nameable is not None:
            pre += [self.typeable(spec, p, env) for p in spec.params]
        for text, _message, _type in spec.checks:
            pre.append(self.cond(parse_condition(text), env))
        effects: list = []
        for text in spec.effects:
            for node in parse_effects(text):
                self.effect(node, env, [], [], effects)
        types = {"thing": "entity", "room": "entity", "dir": "object"}
        params = " ".join(["?here - entity"] + [f"{env[p]} - {types[k]}" for p, k in spec.params.items()])
        lines = [f"  (:action {_sanitise(spec.id)}", f"    :parameters ({params})",
                 "    :precondition (and", *(f"      {c}" for c in pre), "    )", "    :effect (and"]
        for variables, conds, lit in effects:
            body = lit if not conds else f"(when {conds[0] if len(conds) == 1 else '(and ' + ' '.join(conds) + ')'} {lit})"
            if variables:
                body = f"(forall ({' '.join(f'{v} - {t}' for v, t in variables)}) {body})"
            lines.append(f"      {body}")
        lines += ["    )", "  )"]
        return "\n".join(lines)

    @staticmethod
    def typeable(spec, p: str, env: dict) -> str:
        """ClembenchStyle.plannable: ``take e from s`` may name an s the player cannot type when s is
        where e lies (the command is then plain ``take e``); every other argument must be typeable."""
        if spec.id == "take" and p == "s" and "e" in spec.params:
            return f"(or (nameable {env['s']}) (on {env['e']} {env['s']}) (in {env['e']} {env['s']}))"
        return f"(nameable {env[p]})"

    # the two files -----------------------------------------------------------
    def run(self) -> Pddl:
        world = self.world
        specs, notes = self.moves()
        actions = [self.action_text(spec) for spec in specs]
        goals = []
        for g in world.goals:
            lit = f"({self.pred(g.fact[0], len(g.fact) - 1)} {' '.join(self.obj(a) for a in g.fact[1:])})"
            goals.append(lit.replace(" )", ")") if g.positive else f"(not {lit.replace(' )', ')')})")
        init = [f"(nameable {self.obj(e)})" for e in sorted(self.nameable or ())]
        for fact in world.initial_facts:
            init.append(f"({self.pred(fact[0], len(fact) - 1)} {' '.join(self.obj(a) for a in fact[1:])})"
                        .replace(" )", ")"))
        name = _sanitise(world.game)
        kinds = {n: "entity" if i in self.entities else "label" for i, n in self.names.items()}
        constants = sorted(self.obj(c) for c in self.constants)
        objects = sorted(n for n in self.names.values() if n not in constants)
        renamed = {i: n for i, n in self.names.items() if i != n}
        preds = []
        for (_pred, arity), pname in sorted(self.preds.items(), key=lambda kv: kv[1]):
            preds.append(f"    ({pname}{''.join(f' ?a{i} - object' for i in range(arity))})")
        derived = [self.profile.derived[d].format(player=self.obj(self.profile.player))
                   for d in sorted(self.derived_used)]
        preds += [f"    {d.split(chr(10))[0].removeprefix('(:derived ')}" for d in derived]
        header = [f";; {world.title} ({Path(world.path).name}), ruleset {world.ruleset.name}: written by adventure export pddl.",
                  ";; Every action costs 1: an optimal plan is as long as our par.",
                  *(f";; {note}" for note in notes)]
        domain = "\n".join([
            *header,
            f"(define (domain {name})",
            "  (:requirements :adl :derived-predicates)",
            "  (:types entity label - object)",
            f"  (:constants {' '.join(f'{c} - {kinds[c]}' for c in constants)})",
            "  (:predicates", *preds, "  )",
            *("  " + d.replace("\n", "\n  ") for d in derived),
            *actions,
            ")", ""])
        # every rename, ids and predicates alike, so that the header's word is true whichever it says
        mapping = [f";; {i} -> {n}" for i, n in sorted(renamed.items())]
        mapping += [f";; predicate {p}/{k} -> {n}" for (p, k), n in sorted(self.preds.items()) if n != p]
        said = ("names renamed for PDDL (the world's -> PDDL's):" if mapping
                else "every id and predicate is the world's own")
        problem = "\n".join([
            f";; {world.title}: the problem; {said}", *mapping,
            f"(define (problem {name}-problem)",
            f"  (:domain {name})",
            "  (:objects", *(f"    {o} - {kinds[o]}" for o in objects), "  )",
            "  (:init", *(f"    {f}" for f in sorted(init)), "  )",
            "  (:goal (and", *(f"    {g}" for g in goals), "  ))",
            ")", ""])
        return Pddl(domain, problem, renamed, tuple(s.id for s in specs))


def _chain(node, kind) -> list:
    """The operands of a chain of one connective (``a and b and c`` parses as nested pairs)."""
    if isinstance(node, kind):
        return _chain(node.left, kind) + _chain(node.right, kind)
    return [node]
