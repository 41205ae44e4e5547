"""Checks of a world's own actions: shape, keys, and that every predicate they use exists."""

from __future__ import annotations

from typing import Callable

from .logic import LogicError, parse_condition, parse_effects
from .logic_ast import atoms_in
from .logic_ast import Atom, Compare, walk_all
from .ruleset import parse_actions
from ..yamlpos import PosDict, PosList, SourceError, _kind, did_you_mean, key_pos_of, pos_of, start_of


TRAITS = {"takeable", "container", "support", "openable", "lockable", "edible", "door"}
# Facts the loader itself makes, with their number of arguments (for checking world actions).
LOADER_FACTS = {"room": 1, "at": 2, "in": 2, "on": 2, "held": 1, "exit": 3, "via": 3, "open": 1,
                "locked": 1, "unlocks": 2, "eaten": 1, **{t: 1 for t in TRAITS}}
GOAL_ARITY = {"at": 2, "in": 2, "on": 2, "held": 1, "open": 1, "locked": 1, "eaten": 1, "room": 1, "exit": 3}
ACTION_SHAPES = {"id": "a word", "syntax": "a list of texts", "params": "a mapping of slot: kind",
                 "checks": "a list of [condition, message] or [condition, message, fail_type]",
                 "effects": "a list of effects", "success": "text", "ends": "true or false",
                 "info": "true or false", "all": "a parameter name", "all_where": "a condition",
                 "plan": "true, false, goal or goal_object", "plan_if": "a condition"}


class ActionChecks:
    """Mixed into the world builder (which provides ``d``, ``path``, ``err`` and ``errors``)."""

    # what the class it is mixed into provides (declared for the type checker)
    d: dict
    path: str
    err: Callable[..., None]
    errors: list

    def actions(self) -> list:
        """World-defined actions: their shape is checked here, their logic by the ruleset reader."""
        if "actions" not in self.d or self.d["actions"] is None:
            return []
        items = self.d["actions"]
        if not isinstance(items, list):
            self.err(pos_of(self.d, "actions"), f"actions must be a list, not a {_kind(items)}"
                     " (write each action as '- id: ...'; see tui_adventure/rulesets/classic.yaml)")
            return []
        good = PosList()
        good.pos, good.item_pos = start_of(items), []
        ids = []
        for i, item in enumerate(items):
            where = pos_of(items, i)
            if not isinstance(item, dict) or not isinstance(item.get("id"), str):
                self.err(where, "each action is a mapping with at least an id, syntax and success"
                         " (see tui_adventure/rulesets/classic.yaml)")
                continue
            ok = True
            known = PosDict()
            known.pos, known.key_pos, known.value_pos = start_of(item), {}, {}
            for key, value in item.items():
                if key not in ACTION_SHAPES:
                    self.err(key_pos_of(item, key), f"action {item['id']!r}: unknown action key {key!r}"
                             f"{did_you_mean(key, ACTION_SHAPES)} (known: {', '.join(sorted(ACTION_SHAPES))})")
                    continue
                known[key] = value
                known.key_pos[key], known.value_pos[key] = key_pos_of(item, key), pos_of(item, key)
                if not _action_value_ok(key, value):
                    self.err(pos_of(item, key), f"action {item['id']!r}: {key} must be {ACTION_SHAPES[key]},"
                             f" not {value!r} (see tui_adventure/rulesets/classic.yaml)")
                    ok = False
            if ok:
                good.append(known)
                good.item_pos.append(where)
                ids.append(item["id"])
        before = len(self.errors)
        try:
            specs = parse_actions(good, self.path, self.errors)
        except (TypeError, ValueError, AttributeError, KeyError) as exc:
            self.err(pos_of(self.d, "actions"), f"actions cannot be read ({exc})"
                     " (see tui_adventure/rulesets/classic.yaml for the format)")
            return []
        for k in range(before, len(self.errors)):
            e = self.errors[k]
            owner = None
            for aid, apos in zip(ids, good.item_pos):
                if e.pos is not None and apos is not None and (apos.line, apos.col) <= (e.pos.line, e.pos.col):
                    owner = aid
            msg = e.message if owner is None or owner in e.message else f"action {owner!r}: {e.message}"
            if not msg.endswith((")", "?")):
                msg += " (see the actions in tui_adventure/rulesets/classic.yaml for the format)"
            self.errors[k] = SourceError(e.path, e.pos, msg)
        return specs

    def action_predicates(self, world) -> None:
        """Every predicate a world action reads or writes exists, with the right number of arguments."""
        arity: dict[str, set] = {}
        for p, n in LOADER_FACTS.items():
            arity.setdefault(p, set()).add(n)
        for f in world.initial_facts:
            arity.setdefault(f[0], set()).add(len(f) - 1)
        asts = []
        for spec in world.ruleset.actions + world.extra_actions:
            for e in spec.effects:
                try:
                    asts.extend(parse_effects(e))
                except LogicError:
                    pass
        for atom in atoms_in(asts):
            arity.setdefault(atom.pred, set()).add(len(atom.args))
        macros = {m: {len(params)} for m, (params, _) in world.ruleset.macros.items()}
        builtins = set(world.style.builtins)   # Python helpers: any arguments
        items = self.d.get("actions") or []
        for item in items:
            if not isinstance(item, dict):
                continue
            aid = item.get("id")
            texts = []
            for j, chk in enumerate(item.get("checks") or []):
                cond = chk[0] if isinstance(chk, list) and chk else chk.get("if") if isinstance(chk, dict) else None
                texts.append((pos_of(item.get("checks"), j), "c", cond))
            if item.get("all_where"):
                texts.append((pos_of(item, "all_where"), "c", item["all_where"]))
            effects = item.get("effects") or []
            for j, eff in enumerate([effects] if isinstance(effects, str) else effects):
                texts.append((pos_of(effects, j) if not isinstance(effects, str) else pos_of(item, "effects"), "e", eff))
            params = set((item.get("params") or {}) if isinstance(item.get("params"), dict) else ())
            for where, kind, text in texts:
                if not isinstance(text, str):
                    continue
                try:
                    tree = parse_condition(text) if kind == "c" else parse_effects(text)
                except LogicError:
                    continue
                self.action_names(aid, where, tree, params, world)
                atoms = atoms_in(tree)
                for pred, args in ((a.pred, a.args) for a in atoms):
                    if pred in builtins:
                        continue
                    known = macros.get(pred) or arity.get(pred)
                    if known is None:
                        self.err(where, f"action {aid!r}: predicate {pred!r} is unknown: no fact has it and no action"
                                 f" adds it{did_you_mean(pred, [*arity, *macros, *builtins])}"
                                 f" (known: {', '.join(sorted(arity))})")
                    elif len(args) not in known:
                        want = " or ".join(str(n) for n in sorted(known))
                        self.err(where, f"action {aid!r}: {pred} takes {want} argument{'s' if want != '1' else ''},"
                                 f" not {len(args)} (e.g. {_example(pred, min(known))})")


    def action_names(self, aid, where, tree, params: set, world) -> None:
        """Every name in a world action's rule is a parameter, a quantified variable, ``here``,
        ``player``, ``_`` or an id of this world: ``held(matches)`` with no matches, or ``add lit(tool)``
        with no parameter tool, would otherwise only show as an action that never works."""
        ids = set(world.entities)
        known = params | {"here", "player", "_", "inventory"} | ids
        seen: set = set()
        for node, bound in walk_all(tree if isinstance(tree, list) else [tree]):
            names = node.args if isinstance(node, Atom) else (node.left, node.right) if isinstance(node, Compare) else ()
            for name in names:
                if name in known or name in bound or name in seen or name.lstrip("-").isdigit():
                    continue
                seen.add(name)
                self.err(where, f"action {aid!r}: {name!r} is neither a parameter of the action"
                         f" ({', '.join(sorted(params)) or 'it has none'}) nor an id of this world"
                         f"{did_you_mean(name, [*params, *ids])}")


def _action_value_ok(key: str, value) -> bool:
    if key in ("id", "success", "all", "all_where"):
        return isinstance(value, str)
    if key in ("ends", "info"):
        return isinstance(value, bool)
    if key == "plan":
        return isinstance(value, bool) or value in ("goal", "goal_object")
    if key in ("syntax", "effects"):
        return isinstance(value, str) or (isinstance(value, list) and all(isinstance(v, str) for v in value))
    if key == "params":
        return value is None or (isinstance(value, dict) and all(isinstance(v, str) for v in value.values()))
    if key == "checks":
        if value is None:
            return True
        if not isinstance(value, list):
            return False
        for chk in value:
            if isinstance(chk, dict):
                if not all(k in ("if", "else", "type") and isinstance(v, str) for k, v in chk.items()):
                    return False
            elif not (isinstance(chk, list) and all(isinstance(v, str) for v in chk)):
                return False
        return True
    return True


def _example(pred: str, n: int = 1) -> str:
    return {"at": "at(book, study)", "in": "in(apple, fridge)", "on": "on(book, table)", "held": "held(lamp)",
            "open": "open(box)", "locked": "locked(door)", "eaten": "eaten(apple)", "room": "room(hall)",
            "exit": "exit(hall, north, kitchen)", "via": "via(hall, north, door)",
            "unlocks": "unlocks(key, door)"}.get(pred, f"{pred}({', '.join('xyzuvw'[:max(n, 1)])})")
