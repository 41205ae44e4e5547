"""The world file's ``goal:`` list read and checked, every mistake with its line and the fix.

Goals are what a benchmark measures, so a goal that names nothing, has the
wrong arity or asks a room to be on a table must be caught at load, not
discovered as an unwinnable episode.
"""

from __future__ import annotations

from typing import Any, Callable

from ..goals import GOAL_PREDICATES, goal_from_text
from ..rules import LogicError, effect_predicates, parse_effects
from ..world import Goal
from ..rules import GOAL_ARITY
from ..rules.world_actions import _example
from ..yamlpos import _kind, did_you_mean, pos_of


_CHANGED_BY: dict[str, frozenset] = {}   # an effect's text -> the predicates it changes (every world of a ruleset)


def _changed_by(text: str) -> frozenset:
    hit = _CHANGED_BY.get(text)
    if hit is None:
        try:
            hit = frozenset(effect_predicates(parse_effects(text)))
        except LogicError:
            hit = frozenset()   # reported where the action is checked
        if len(_CHANGED_BY) > 10_000:
            _CHANGED_BY.clear()
        _CHANGED_BY[text] = hit
    return hit


class GoalChecks:
    """Mixed into the world builder (which provides ``d``, ``err``)."""

    # what the class it is mixed into provides (declared for the type checker)
    d: dict
    err: Callable[..., None]
    scene_effect_texts: Any

    def changeable_predicates(self, ruleset) -> set[str]:
        """Predicates a goal may name: those the ruleset's actions and this world's own actions change
        (a world action that adds ``lit(candle)`` makes ``lit`` a goal like any other)."""
        texts = [e for spec in (ruleset.actions if ruleset is not None else []) for e in spec.effects]
        items = self.d.get("actions")
        for item in items if isinstance(items, list) else []:
            effects = item.get("effects") if isinstance(item, dict) else None
            texts.extend([effects] if isinstance(effects, str) else effects if isinstance(effects, list) else [])
        texts.extend(self.scene_effect_texts())   # events, rules and giving change facts too
        out = set(GOAL_PREDICATES)
        for text in texts:
            out |= _changed_by(str(text))
        return out

    def goals(self, entities, changeable: set[str] = GOAL_PREDICATES) -> list[Goal]:
        raw = self.d.get("goal")
        if raw is None:
            if "goal" in self.d:
                self.err(pos_of(self.d, "goal"), "goal is empty (list at least one fact or sentence under it)")
            return []
        if isinstance(raw, str):
            raw = [raw]
        if not isinstance(raw, list) or not raw:
            self.err(pos_of(self.d, "goal"), "goal must be a list of at least one fact or sentence"
                     " (write e.g. goal: [on(book, table)])")
            return []
        names = [e for e in entities if not entities[e].hidden]
        out = []
        split = False
        for i, item in enumerate(raw):
            where = pos_of(raw, i) if hasattr(raw, "item_pos") else pos_of(self.d, "goal")
            if isinstance(item, str) and item.count("(") != item.count(")"):
                # [at(player, hall)] is two items in YAML: "at(player" and "hall)"
                if item.count("(") > item.count(")"):
                    split = True
                    whole = item
                    for rest in raw[i + 1:]:
                        whole += f", {rest}"
                        if not isinstance(rest, str) or ")" in rest:
                            break
                    self.err(where, f"goal {item!r} is cut off at a comma: in a [list] a fact with a comma"
                             f" needs quotes (write [{whole!r}], or one goal per line after '- ')")
                elif not split:
                    self.err(where, f"cannot read goal {item!r} (unbalanced parentheses)")
                continue
            split = False
            if not isinstance(item, str):
                self.err(where, f"a goal is a fact or a sentence, not a {_kind(item)}"
                         " (write e.g. on(book, table); quote it if it has ':' in it)")
                continue
            try:
                goal = goal_from_text(item, entities, changeable)
            except ValueError as exc:
                self.err(where, str(exc))
                continue
            pred, args = goal.fact[0], goal.fact[1:]
            bad = [a for a in args if a not in entities]
            for arg in bad:
                self.err(where, f"goal {item!r} names {arg!r}, which is no room or object"
                         f"{did_you_mean(arg, names)} (use the ids of rooms and objects)")
            if bad:
                continue
            want = GOAL_ARITY.get(pred)
            if want is not None and len(args) != want:
                self.err(where, f"goal {item!r}: {pred} takes {want} argument{'s' if want > 1 else ''},"
                         f" not {len(args)} (e.g. {_example(pred)})")
                continue
            if pred in ("in", "on") and entities[args[1]].kind == "room":
                self.err(where, f"goal {item!r}: {args[1]!r} is a room, and rooms hold things with at"
                         f" (write at({args[0]}, {args[1]}))")
                continue
            if pred == "at" and entities[args[1]].kind != "room":
                self.err(where, f"goal {item!r}: {args[1]!r} is not a room, and at is for rooms"
                         f" (write in({args[0]}, {args[1]}) or on({args[0]}, {args[1]}))")
                continue
            if self.d.get("players") and (pred in ("held", "held_by") or "player" in args):
                # "player" is whoever's turn it is: a goal about them would hold or not by the turn
                self.err(where, f"goal {item!r}: with several players, goals are shared and say where things are"
                         " (at, in, on, open...), not who holds them or where the player is")
                continue
            out.append(goal)
        return out
