"""What a model is told about a native world (or a story file) before it reads the first room.

Imported clembench worlds carry upstream's own prompt (the episode already
puts it in front of the first observation) and get nothing more: their
results must stay comparable with clembench's. Native worlds have no prompt,
so one is written here from the world itself: the goal in plain words, the
shape of the commands its ruleset understands, and how to answer in the
chosen mode. It is put in front of the first user message, the way clembench
does it, rather than in a system message, because some local chat templates
reject a system role.
"""

from __future__ import annotations

import re
from ..engine.text import plural


def object_names(world) -> dict[str, str]:
    """Every object and room by a name that tells it apart (``brass key`` and ``red key``, not ``key`` twice).

    These are names the world's parser reads back as that thing, so a model
    (or a tool argument) can use them verbatim.
    """
    shown = [e for e in world.entities.values() if not e.hidden and e.kind in ("object", "room")]
    out: dict[str, str] = {}
    for e in shown:
        name = e.name
        rivals = [o for o in shown if o is not e and o.name == e.name]
        if rivals:
            for adj in e.adjectives:
                if not any(adj in o.words() for o in rivals):
                    name = f"{adj} {e.name}"
                    break
        out[e.id] = name
    return out


def goal_text(world, goal, names: dict[str, str] | None = None) -> str:
    """One goal as a sentence ("the book is on the shelf")."""
    names = names if names is not None else object_names(world)
    pred, *args = goal.fact
    n = [names.get(a, world.name_of(a)) for a in args]
    positive = goal.positive
    if pred in ("on", "in") and len(n) == 2:
        text = f"the {n[0]} is {pred} the {n[1]}"
    elif pred == "held" and n:
        text = f"you have the {n[0]}"
    elif pred == "at" and len(n) == 2:
        text = f"you are in the {n[1]}" if args[0] == "player" else f"the {n[0]} is in the {n[1]}"
    elif pred == "open" and n:
        text = f"the {n[0]} is {'open' if positive else 'closed'}"
        positive = True
    elif pred == "locked" and n:
        text = f"the {n[0]} is {'locked' if positive else 'unlocked'}"
        positive = True
    elif pred == "eaten" and n:
        text = f"the {n[0]} is eaten"
    elif len(n) == 1:   # a world's own one-place predicate: "the candle is lit"
        text = f"the {n[0]} is {pred.replace('_', ' ')}"
    else:
        text = str(goal)
    return text if positive else f"it is not so that {text}"


def command_forms(world) -> list[str]:
    """The command shapes of the world's actions, one per action (``put <obj> in <dst>``)."""
    forms = []
    for action in world.actions:
        syntax = action.spec.syntax
        if not syntax:
            continue
        want = set(action.spec.params)
        pattern = next((s for s in syntax if set(re.findall(r"\{(\w+)\}", s)) == want), syntax[0])
        words = [w.split("|")[0] for w in pattern.split()]
        forms.append(re.sub(r"\{(\w+)\}", r"<\1>", " ".join(words)))
    return forms


def native_prompt(world, mode: str = "text", planning: bool = False) -> str:
    names = object_names(world)
    goals = [goal_text(world, g, names) for g in world.goals]
    if len(goals) > 1:
        goal = ", ".join(goals[:-1]) + " and " + goals[-1]
    else:
        goal = goals[0] if goals else "explore"
    lines = ["You are playing a text adventure game. I will describe what you can perceive in the game,"
             " and you act in it one command at a time.",
             "", f"Your goal: {goal[0].upper() + goal[1:]}."]
    forms = command_forms(world)
    if forms:
        lines += ["", "Commands look like this (replace <...> with the name of a thing, a room or a direction):",
                  "  " + ", ".join(forms)]
    lines.append("")
    if mode == "text":
        lines += ["Reply with exactly one command on a line that starts with >, and nothing else. For example:",
                  "> look"]
        if planning:
            lines += ["Then, on the next line, write your plan: Next actions: <command>, <command>"]
        lines.append('Once you have achieved your goal, reply "> done".')
    elif mode == "tool":
        lines += ["Act by calling the act tool with one command each turn.",
                  'Once you have achieved your goal, call act with the command "done".']
    else:
        lines += ["Act by calling the tool of the action you want to take, one action each turn.",
                  "Once you have achieved your goal, call the done tool."]
    lines.append(f"You have at most {plural(world.max_turns, 'turn')}.")
    return "\n".join(lines)


def story_prompt(title: str, max_turns: int, mode: str = "text", max_score: int | None = None) -> str:
    """What a model is told of a Z-machine story file: what such a game is, how to answer, and how it is
    scored (its own score; Main Score is the share of the max score reached)."""
    lines = [f"You are playing \"{title}\", a piece of interactive fiction: a Z-machine story file, the format"
             " of Infocom's and Inform's text adventures (Zork is one), run by an interpreter. I will send you"
             " what the game prints, and you act in it one command at a time.",
             "", "Type commands as a player types them at the game's > prompt: short imperative sentences such as"
             " look, north, take lamp, open the mailbox, put the coin in the slot, inventory, examine the door."
             " The game's parser knows its own words; if it does not understand, it says so: try other words.",
             "", "The game keeps a score: earn as many points as you can and win it"
             + (f" (the most it gives is {max_score} points)." if max_score else "."),
             ""]
    if mode == "text":
        lines += ["Reply with exactly one command on a line that starts with >, and nothing else. For example:",
                  "> look", 'To stop playing before the game ends, reply "> done".']
    else:
        lines += ["Act by calling the act tool with one command each turn.",
                  'To stop playing before the game ends, call act with the command "done".']
    lines.append(f"You have at most {plural(max_turns, 'turn')}.")
    return "\n".join(lines)


def system_prompt(episode, mode: str = "text") -> str | None:
    """The system message a model gets for ``episode``: ours for a native world or a story file, none for
    an imported clembench one (clemcore sends none; the instance's prompt opens the first user message).
    The one rule for both runners: ``adventure run`` (``llm.ModelPlayer``) and clemcore's (``clemgame/``)."""
    if episode.clembench:
        return None
    if episode.game is None:   # a game without our engine: a story file
        play = episode.play
        return story_prompt(play.title, episode.max_turns, mode, play.status().max_score)
    return native_prompt(episode.world, mode, episode.planning)
