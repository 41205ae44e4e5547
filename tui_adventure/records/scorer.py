"""``adventure score ROOT``: a scores.json beside every interactions.json.

Scores are read from the recorded events, as ``clem score`` reads them, so a
tree written by any version of the recorder (or by upstream itself) is scored
the same way, and upstream's numbers come out exactly, its quirks included:

- "finished" is sticky: set by ``adventure_finished``, cleared by
  ``turn_limit_reached``, and finally overwritten by ``game_result``, which
  carries the game master's own sticky flag. So the speed metrics are numbers
  whenever all goals were reached at some point, even in an aborted episode.
- A ``done`` before any ``adventure_finished`` counts as a hallucination.
- ``bad_plan_followed`` is written before it is computed (always 0 per turn)
  but the episode's ``bad_plan_follow_ratio`` counts it.
- Main Score is ``achieved_goal_ratio * 100`` in that order (1/3 gives
  33.33333333333333), NaN when aborted.

A Z-machine story file's episode (``adventure_info`` names ``zmachine``) keeps the same
names where they mean the same (Success: won; Lose: lost or ended unwon; Aborted; the
request counts); its Main Score is 100 x score / max score (TALES's normalised score; a
loss keeps what was scored), and each turn has the game's ``score`` after it.

Upstream's turn and episode keys come first, in upstream's order (clem eval
reads only ``Aborted`` and ``Main Score``); ours follow: per turn the progress
rate (share of the optimal plan done, when the world is at hand), per episode
repetition rate, par given and exact, the old full rating, moves over par
(``engine.metrics.moves_over_par``: beside clembench's ``turns_over_par``,
the figure the app shows) and the final progress rate.
"""

from __future__ import annotations

import os
from pathlib import Path
from dataclasses import dataclass, field
from typing import Callable

from ..engine import metrics as m
from ..engine.metrics import ProgressTracker
from ..engine.snapshot import OutputRefused
from ..engine.world import World
from .files import RecordsError, is_player, read_json, world_pointer, write_json

FAIL_TYPES = ["lark_exception", "malformed_command", "undefined_action_verb", "undefined_action",
              "undefined_repr_str", "manipulating_room", "undefined_argument_type", "taking_from_inventory",
              "other_room_argument", "domain_trait_type_mismatch", "domain_type_discrepancy",
              "world_state_discrepancy", "entity_not_accessible", "entity_state_mismatch",
              "entity_trait_mismatch", "entity_already_inventory", "going_to_current_room", "no_exit_to",
              "inventory_limit_exceeded"]
PLAN_KEYS = ("plan_followed", "plan_command_success_ratio", "bad_plan_followed")
NAN = float("nan")


def _reply(turn: list[dict]) -> str:
    return next((str(e["action"]["content"]) for e in turn if is_player(e.get("from"))), "")


def _command(reply: str) -> str:
    text = reply[1:] if reply.startswith(">") else reply.strip()
    return text.split("\n", 1)[0].strip()


def score_interactions(data: dict, exact_par: int | None = None, world=None,
                       tracker: ProgressTracker | None = None, replay: Replay | None = None) -> dict:
    """The scores.json of one episode's interactions.

    With ``world`` (the World the episode was played in) the replies are
    played again to give each turn its progress rate; ``tracker`` may be
    shared between episodes of the same world to reuse its solved states.
    """
    info = data.get("adventure_info", {})
    story = isinstance(info, dict) and "zmachine" in info   # scored by the game's own score
    score_now, max_score = 0, info.get("max_score") if story else None
    turns = data.get("turns", [])
    turn_scores: dict = {}
    invalid_format = ""
    finished = turn_limit_loss = lost = False
    context_loss = (data.get("meta") or {}).get("ended_by") == "context_exhausted"
    final_goals: list = []
    closing_done = False
    fails_per_turn: list[dict] = []
    plans: list[dict] = []
    for i, turn in enumerate(turns):
        goal_score = 0
        fail = {"parsing": 0, "resolution": 0, **{t: 0 for t in FAIL_TYPES}}
        plan = {k: 0 for k in PLAN_KEYS}
        hallucination = 0
        exploration: dict = {}
        closing_done = False
        for event in turn:
            kind, content = event["action"]["type"], event["action"]["content"]
            if kind == "invalid_format":
                invalid_format = content
            elif kind == "adventure_finished":
                finished = True
            elif kind == "hallucinated_finish":
                hallucination = 1
            elif kind == "action_info" and content.get("action_type") == "done" and not finished:
                hallucination = 1
            if kind == "action_info":
                closing_done = content.get("action_type") == "done"   # of the last turn in the end
            elif kind == "turn_limit_reached":
                turn_limit_loss = True
                finished = False
            elif kind == "game_lost":   # a scene's lose condition (ours; upstream cannot lose): Lose, score 0
                lost = True
            elif kind == "context_exhausted":   # the model's context is full: ended, like an abort
                context_loss = True
                finished = False
            elif kind == "goal_status":
                goal_score = content["turn_goal_score"]
            elif kind == "game_result":
                finished = content["game_successfully_finished"]
                final_goals = content["goal_states_achieved"]
            elif kind in PLAN_KEYS:
                plan[kind] = content
            if kind == "action_fail":
                fail[content["phase"]] = 1
                fail[content["fail_type"]] = 1
            if kind == "action_info" and story:
                score_now = content.get("score", score_now)
                max_score = content.get("max_score") or max_score
            if kind in ("action_info", "action_fail") and not story:
                x = content["exploration_info"]
                exploration = {"epistemic_action": 1 if x["action_epistemic"] else 0,
                               "pragmatic_action": 1 if x["action_pragmatic"] else 0,
                               "effective_epistemic_gain_amount": x["effective_epistemic_gain_amount"],
                               "known_entities_ratio": x["known_entities_ratio"],
                               "visited_rooms_ratio": x["visited_rooms_ratio"],
                               "known_goal_entities_ratio": x["known_goal_entities_ratio"]}
        s = {m.REQUEST_COUNT: 1, m.REQUEST_COUNT_PARSED: 0 if invalid_format else 1,
             m.REQUEST_COUNT_VIOLATED: 1 if invalid_format else 0,
             "command_tag_missing": int(invalid_format == "command_tag_missing"),
             "next_actions_missing": int(invalid_format == "next_actions_missing"),
             "hallucination": hallucination,
             "action_parsing_fail": fail["parsing"], "action_resolution_fail": fail["resolution"]}
        s.update({t: fail[t] for t in FAIL_TYPES})
        s["goal_score"] = goal_score
        s.update(exploration)
        if story:
            s["score"] = score_now
        s.update(plan)                       # bad_plan_followed is written before it is known (upstream)
        if i >= 1 and plans[-1]["plan_command_success_ratio"] == 0.0 and plan["plan_followed"]:
            plan = {**plan, "bad_plan_followed": 1}
        plans.append(plan)
        fails_per_turn.append(fail)
        turn_scores[str(i)] = s

    n = len(turn_scores)
    scores = list(turn_scores.values())
    parsed = sum(t[m.REQUEST_COUNT_PARSED] for t in scores)
    episode: dict = {m.REQUEST_COUNT_VIOLATED: sum(t[m.REQUEST_COUNT_VIOLATED] for t in scores),
                     m.REQUEST_COUNT_PARSED: parsed, m.REQUEST_COUNT: n,
                     m.REQUEST_SUCCESS_RATIO: parsed / n if n else 0.0,
                     "hallucination_count": sum(t["hallucination"] for t in scores),
                     "action_parsing_fail": sum(f["parsing"] for f in fails_per_turn),
                     "action_resolution_fail": sum(f["resolution"] for f in fails_per_turn)}
    for t in FAIL_TYPES:
        episode[t] = sum(f[t] for f in fails_per_turn)
    episode["successful_actions"] = parsed - episode["action_parsing_fail"] - episode["action_resolution_fail"]
    episode["turn_limit_loss"] = 1 if turn_limit_loss else 0
    if context_loss:   # ours (upstream has no such end): only where it happened
        episode["context_exhausted"] = 1
    par = info.get("optimal_turns")
    replies = [_reply(t) for t in turns]
    progress = _progress(world, replies, tracker, replay) if world is not None and replay else None
    if progress is not None and exact_par is None:
        exact_par = progress[1]
    speed_par = par if par is not None else exact_par   # a native world without a stated par: the exact one
    max_turns = info.get("max_turns", 50)
    if finished and speed_par is not None:
        ratio_t = m.turn_ratio(n, speed_par, max_turns, upstream=True)
        episode.update({m.TURNS_OVER_PAR: m.turns_over_par(n, speed_par), m.TURN_RATIO: ratio_t,
                        "finish_speed": 1 - ratio_t})
    else:
        episode.update({m.TURNS_OVER_PAR: NAN, m.TURN_RATIO: NAN, "finish_speed": NAN})
    goal_count = info.get("goal_count") or 0
    ratio = len(final_goals) / goal_count if goal_count else 1.0   # upstream's, unclamped
    if story:   # TALES's normalised score; a game that states no max score: won is all of it
        ratio = score_now / max_score if max_score else (1.0 if finished else 0.0)
    episode["achieved_goal_ratio"] = ratio
    aborted = bool(invalid_format or turn_limit_loss or context_loss)
    if aborted:
        episode.update({m.ABORTED: 1, m.SUCCESS: 0, m.LOSE: 0})
    else:
        episode.update({m.ABORTED: 0, m.SUCCESS: 1 if finished else 0, m.LOSE: 0 if finished else 1})
    if lost and not aborted:
        finished = False
        episode.update({m.SUCCESS: 0, m.LOSE: 1})
    episode[m.MAIN_SCORE] = m.main_score(ratio, aborted, lost and not story)
    if story:
        episode.update({"score": score_now, "max_score": max_score})
    episode["plan_followed_ratio"] = sum(p["plan_followed"] for p in plans[1:]) / n if n else 0.0
    episode["plan_average_viability_ratio"] = sum(p["plan_command_success_ratio"] for p in plans) / n if n else 0.0
    episode["bad_plan_follow_ratio"] = sum(p["bad_plan_followed"] for p in plans) / n if n else 0.0
    episode["bad_plan_dismiss_ratio"] = 1 - episode["bad_plan_follow_ratio"]

    # ours
    episode[m.REPETITION_RATE] = m.repetition_rate([_command(r) for r in replies])
    episode["par_given"] = par
    episode["par_exact"] = exact_par
    episode[m.FULL_RATING] = m.full_rating(ratio, episode[m.TURN_RATIO])
    over = m.moves_over_par(n, closing_done, exact_par if exact_par is not None else par, episode[m.SUCCESS] == 1)
    episode[m.MOVES_OVER_PAR] = NAN if over is None else over
    if progress is not None:
        for s, p in zip(scores, progress[0]):
            s[m.PROGRESS_RATE] = p
        episode[m.PROGRESS_RATE] = progress[0][-1] if progress[0] else 0.0
    return with_header(data, {"turn scores": turn_scores, "episode scores": episode})


def with_header(interactions: dict, scores: dict) -> dict:
    """The scores as clemcore's ``GameScorer.compute_scores`` lays them out: the episode's ``meta`` and
    ``players`` first, copied from its interactions (empty when it has none), then the scores, then its
    ``player_models`` when it has them."""
    meta, players = interactions.get("meta"), interactions.get("players")
    out = {"meta": meta if isinstance(meta, dict) else {}, "players": players if isinstance(players, dict) else {},
           **scores}
    if "player_models" in interactions:
        out["player_models"] = interactions["player_models"]
    return out


# The game master's replay of an episode: the state after each reply, or None when the replies do not
# replay (the episode ends before them). The scorer sits below the game master, so it is handed one.
Replay = Callable[[object, list[str]], "list | None"]


def _progress(world, replies: list[str], tracker: ProgressTracker | None,
              replay: Replay) -> tuple[list[float], int | None] | None:
    """The progress rate after each turn, replaying the replies; None when they do not replay."""
    states = replay(world, replies)
    if states is None:
        return None
    tracker = tracker or ProgressTracker(world)
    return [tracker.progress(st) for st in states], tracker.par_0


# -- finding the world an episode was played in --------------------------------------
WorldFinder = Callable[[Path, dict], "World | None"]


def world_finder(clembench_instances: str | Path | None = None) -> WorldFinder:
    """A finder for ``score_tree``: the world file named by the episode's ``tui_adventure.json``
    (written by our recorder) or, for a native world, by its instance.json; an imported clembench
    instance recorded elsewhere needs the surface names of upstream's definition files, found beside
    ``clembench_instances`` (upstream's ``in/instances.json``; default: $CLEMBENCH_INSTANCES, else the
    copy of upstream's definitions that ships with the package)."""
    instances = clembench_instances or os.environ.get("CLEMBENCH_INSTANCES")
    cache: dict = {}

    def load(path: str):
        from ..instances.convert import load_world_file

        if path not in cache:
            cache[path] = load_world_file(path)
        return cache[path]

    def find(instance_dir: Path, instance: dict):
        from ..instances import packaged

        try:
            where = world_pointer(instance_dir)
            if where and Path(where).exists():
                return load(where)
            if where and packaged.is_name(where):
                if where not in cache:
                    cache[where] = packaged.world(where)
                return cache[where]
            if "initial_state" in instance:
                from ..instances.convert import load_definitions, world_from_instance

                experiment = instance_dir.parent.name
                key = (experiment, instance.get("game_id"))
                if key not in cache:
                    names = (load_definitions(Path(instances), instance) if instances
                             else packaged.names_for(instance))   # upstream's own definitions ship with us
                    cache[key] = world_from_instance(instance, experiment, names)
                return cache[key]
        except Exception:        # a damaged or moved world: score without progress
            return None
        return None

    return find


@dataclass
class ScoreReport:
    """What ``adventure score`` did: scored episodes, and the ones it left out and why."""

    written: list[Path] = field(default_factory=list)
    errored: list[Path] = field(default_factory=list)      # error.json: the episode raised; not played
    incomplete: list[Path] = field(default_factory=list)   # neither completed.json nor error.json: quit mid-way
    unreadable: list[tuple[Path, str]] = field(default_factory=list)

    def summary(self, root) -> str:
        parts = [f"wrote {len(self.written)} scores.json under {root}"]
        if self.errored:
            parts.append(f"{len(self.errored)} errored (not played, not scored, as clem eval counts them)")
        if self.incomplete:
            parts.append(f"{len(self.incomplete)} incomplete (quit mid-way; not scored)")
        if self.unreadable:
            parts.append(f"{len(self.unreadable)} unreadable")
        return "; ".join(parts)


def episode_status(directory: Path) -> str:
    """``completed``, ``error`` or ``incomplete``: clemcore scores only episodes that ran to their end."""
    if (directory / "error.json").exists():
        return "error"
    if (directory / "completed.json").exists():
        return "completed"
    return "incomplete"


def score_root(root: str | Path, exact_par=None, find_world: WorldFinder | None = None,
               replay: Replay | None = None) -> ScoreReport:
    """Write scores.json for every completed episode under ``root``; errored and unfinished episodes
    lose any stale scores.json, so ``eval`` counts them as clemcore does: not played.

    ``find_world(instance_dir, instance)`` gives the World of an episode (for
    per-turn progress) or None to skip progress; by default ``world_finder()``.
    ``replay`` (the game master's, ``gamemaster.scoring``) replays its replies; without it no progress.
    A damaged file is reported and the other episodes are still scored.
    """
    find_world = find_world or world_finder()
    trackers: dict = {}
    report = ScoreReport()
    for path in sorted(Path(root).rglob("interactions.json")):
        if not path.is_file():
            continue
        status = episode_status(path.parent)
        if status != "completed":
            (path.parent / "scores.json").unlink(missing_ok=True)
            (report.errored if status == "error" else report.incomplete).append(path.parent)
            continue
        try:
            report.written.append(_score_episode(path, exact_par, find_world, trackers, replay))
        except OutputRefused as exc:
            report.unreadable.append((path.parent, f"its scores.json {exc.what}; remove it and score again"))
        except RecordsError as exc:   # its words already name the file and what is wrong with it
            report.unreadable.append((path.parent, str(exc)))
        except (OSError, ValueError, KeyError, TypeError, AttributeError, IndexError) as exc:
            report.unreadable.append((path.parent, f"{type(exc).__name__}: {exc}"))
    for done in sorted(Path(root).rglob("completed.json")):   # a finished episode the walk above never met
        if not (done.parent / "interactions.json").is_file() and (done.parent / "instance.json").exists():
            report.unreadable.append((done.parent, "its interactions.json is missing or not a file"))
    return report


def _score_episode(path: Path, exact_par, find_world: WorldFinder, trackers: dict, replay) -> Path:
    data = read_json(path)
    if not isinstance(data, dict) or not isinstance(data.get("turns", []), list):
        raise ValueError("interactions.json is not a clemcore interactions object")
    par = exact_par(path.parent) if exact_par else None
    world = None
    try:
        instance = read_json(path.parent / "instance.json")
        world = find_world(path.parent, instance) if isinstance(instance, dict) else None
    except (OSError, ValueError):
        pass
    tracker = None
    if world is not None:
        tracker = trackers.setdefault(id(world), ProgressTracker(world))
    write_json(path.parent / "scores.json", score_interactions(data, par, world, tracker, replay))
    return path.parent / "scores.json"
