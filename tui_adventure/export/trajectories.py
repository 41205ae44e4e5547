"""``adventure export trajectories ROOT``: a records tree as one chat-format line per episode and seat.

SFT and RL trainers read conversations, not clemcore's event logs: the
messages as the model saw them (system prompt, tool calls and tool results
included, from the last request of a model's episode; rebuilt from the
interactions for a person or a program), the tools that were offered, a
reward per turn (the change in goals reached, as the game master logged
it; for a story file, the change in the game's own score) and the episode's scores. Errored and unfinished episodes are left out
and counted, as ``eval`` counts them. In a world of several players each
seat is a trajectory of its own (``seat``, ``id`` ending in ``player_K``):
one conversation holding both seats' moves as ``assistant`` would teach a
trainer that one agent made them all.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

from ..records.files import RecordsError, layout_parts, nan_to_none, read_episode, read_json
from ..records.scorer import episode_status


@dataclass
class ExportReport:
    written: int = 0                                          # trajectories: one per seat of each episode
    episodes: int = 0                                         # the episodes they came from
    left_out: dict[str, int] = field(default_factory=dict)   # why -> how many


def episodes(root: Path):
    above = layout_parts(root)   # ROOT may be one run's folder or below it, as for eval
    for path in sorted(root.rglob("interactions.json")):
        if len(above + path.relative_to(root).parts) >= 5:
            yield path.parent


def trajectory(directory: Path, root: Path) -> dict:
    """One episode of one player as a training example (the first seat's, in a world of several)."""
    return trajectories(directory, root)[0]


def trajectories(directory: Path, root: Path, above: tuple[str, ...] | None = None) -> list[dict]:
    """One episode as training examples, one per seat: in a world of several players each seat's own
    view (the messages between the game master and that player, its calls, the rewards of the turns
    it played), named by the episode and the seat, so a trainer never reads two agents as one.
    ``above``: ``layout_parts(root)``, which an export of many episodes reads once. RecordsError when
    its files cannot be read."""
    data = read_json(directory / "interactions.json")
    if not isinstance(data, dict) or not isinstance(data.get("turns"), list):
        raise RecordsError(f"{directory}: not a clemcore interactions file")
    if above is None:
        above = layout_parts(root)
    run, game, experiment, episode = (above + directory.relative_to(root).parts)[-4:]
    spec = ((data.get("player_models") or {}).get("0") or {}).get("model_spec") or {}
    players = {k: v for k, v in (data.get("players") or {}).items() if k != "GM" and isinstance(v, dict)}
    seats = sorted(players) or ["Player 1"]
    scores = {}
    if (directory / "scores.json").exists():
        scores = {k: nan_to_none(v) for k, v in
                  ((read_json(directory / "scores.json") or {}).get("episode scores", {})).items()}
    out = []
    for seat in seats:
        rewards, messages = [], []
        score = 0   # a game scored by its own score (a story file): the reward is its change
        for turn in data["turns"]:
            mine = any(_kind(e) == "get message" and e.get("from") == seat for e in turn) or len(seats) == 1
            if not mine:
                continue
            reward, scored = 0, False
            for event in turn:
                action = event.get("action") or {}
                kind, content = action.get("type"), action.get("content")
                if kind == "send message":
                    messages.append({"role": "user", "content": content})
                elif kind == "get message":
                    messages.append({"role": "assistant", "content": content})
                elif kind == "action_info" and isinstance(content, dict) and type(content.get("score")) is int:
                    reward, score, scored = content["score"] - score, content["score"], True
                elif kind == "goal_status" and isinstance(content, dict) and not scored:
                    reward = content.get("turn_goal_score", 0)
            rewards.append(reward)
        calls = _calls(directory, seat)
        if calls:   # a model's own view: its last request holds the whole conversation, tool calls and all
            last = calls[-1]
            sent = last.get("manipulated_prompt_obj")
            said = ((last.get("raw_response_obj") or {}).get("choices") or [{}])[0].get("message")
            if isinstance(sent, list) and sent and isinstance(said, dict):
                messages = [*sent, {k: v for k, v in said.items() if k in ("role", "content", "tool_calls")}]
        several = len(seats) > 1
        who = players.get(seat, {})
        name = who.get("model_name", spec.get("model_name", run)) if several else spec.get("model_name", run)
        base = f"{run}/{game}/{experiment}/{episode}"
        out.append({"id": f"{base}/{seat.lower().replace(' ', '_')}" if several else base, "run": run, "game": game,
                    "experiment": experiment, "episode": episode, "seat": seat,
                    "role": who.get("game_role", "Adventurer"), "seats": len(seats), "player": name,
                    "mode": spec.get("mode", "text"), "tools": _tools(directory, spec), "messages": messages,
                    "rewards": rewards, "mixed": bool((data.get("meta") or {}).get("mixed")), "scores": scores})
    return out


def _kind(event) -> str | None:
    action = event.get("action") if isinstance(event, dict) else None
    return action.get("type") if isinstance(action, dict) else None


def _calls(directory: Path, seat: str = "Player 1") -> list[dict]:
    path = directory / f"{seat.lower().replace(' ', '_')}.requests.json"
    if not path.exists():
        return []
    calls = (read_json(path) or {}).get("calls") or []
    return [c["call"] for c in calls if isinstance(c, dict) and isinstance(c.get("call"), dict)]


def _tools(directory: Path, spec: dict) -> list[dict]:
    """The tool schemas the model was offered (rebuilt from the world: records keep only their names)."""
    if spec.get("mode") not in ("tool", "tools"):
        return []
    from ..players.tools import tool_specs

    try:
        world = read_episode(directory).world
    except RecordsError:
        return [{"name": n} for n in spec.get("tools", [])]
    assert world is not None   # read_episode reads a world unless asked for the replies alone
    planning = world.meta.get("variant") == "plan"
    # a game without our engine's actions (a story file) offered one tool in either tool mode: act(command)
    mode = spec["mode"] if getattr(world, "actions", None) is not None else "tool"
    return [{"type": "function", "function": t} for t in tool_specs(world, mode, planning)]


def export(root: str | Path, out: IO) -> ExportReport:
    """Write one JSON line per seat of each completed episode under ``root`` to ``out``."""
    root = Path(root)
    report = ExportReport()
    above = layout_parts(root)
    for directory in episodes(root):
        status = episode_status(directory)
        if status != "completed":
            report.left_out[status] = report.left_out.get(status, 0) + 1
            continue
        try:
            lines = trajectories(directory, root, above)
        except (RecordsError, OSError, ValueError, KeyError, TypeError, AttributeError):
            report.left_out["unreadable"] = report.left_out.get("unreadable", 0) + 1
            continue
        for line in lines:
            out.write(json.dumps(line, ensure_ascii=False, allow_nan=False, default=str) + "\n")
        report.written += len(lines)
        report.episodes += 1
    return report
