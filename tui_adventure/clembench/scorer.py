"""``adventure score ROOT``: a scores.json beside every interactions.json.

Read from the recorded events, as ``clem score`` does, so a tree written by
any version of the recorder is scored the same way. Upstream's turn and
episode keys come first (clem eval reads only ``Aborted`` and
``Main Score``); ours follow: par given and exact, turn ratio, the full rating,
progress rate per turn and repetition rate.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

from .records import write_json

FAIL_TYPES = ["lark_exception", "malformed_command", "undefined_action_verb", "undefined_action",
              "undefined_repr_str", "manipulating_room", "undefined_argument_type", "taking_from_inventory",
              "other_room_argument", "domain_trait_type_mismatch", "domain_type_discrepancy",
              "world_state_discrepancy", "entity_not_accessible", "entity_state_mismatch",
              "entity_trait_mismatch", "entity_already_inventory", "going_to_current_room", "no_exit_to",
              "inventory_limit_exceeded"]
NAN = float("nan")


def _gm_events(turn: list[dict]) -> dict:
    out: dict = {}
    for e in turn:
        if e.get("from") == "GM" and e.get("to") == "GM":
            out.setdefault(e["action"]["type"], e["action"]["content"])
    return out


def score_interactions(data: dict, exact_par: int | None = None) -> dict:
    info = data.get("adventure_info", {})
    max_turns = info.get("max_turns", 50)
    par = info.get("optimal_turns")
    goal_count = info.get("goal_count") or 1
    turn_scores: dict = {}
    invalid = hallucinations = successes = 0
    commands: list[str] = []
    finished = turn_limit = False
    goals_now: list = []
    for i, turn in enumerate(data.get("turns", [])):
        ev = _gm_events(turn)
        s = {"Request Count": 1, "Parsed Request Count": 0 if "invalid_format" in ev else 1,
             "Violated Request Count": 1 if "invalid_format" in ev else 0,
             "command_tag_missing": int(ev.get("invalid_format") == "command_tag_missing"),
             "next_actions_missing": int(ev.get("invalid_format") == "next_actions_missing"),
             "hallucination": int("hallucinated_finish" in ev)}
        fail = ev.get("action_fail") or {}
        s["action_parsing_fail"] = int(fail.get("phase") == "parsing")
        s["action_resolution_fail"] = int(fail.get("phase") == "resolution")
        for ft in FAIL_TYPES:
            s[ft] = int(fail.get("fail_type") == ft)
        status = ev.get("goal_status") or {}
        s["goal_score"] = status.get("turn_goal_score", 0)
        goals_now = status.get("goal_states_achieved", goals_now)
        xinfo = (ev.get("action_info") or fail or {}).get("exploration_info", {})
        s["epistemic_action"] = int(bool(xinfo.get("action_epistemic")))
        s["pragmatic_action"] = int(bool(xinfo.get("action_pragmatic")))
        s["effective_epistemic_gain_amount"] = xinfo.get("effective_epistemic_gain_amount", 0)
        for k in ("known_entities_ratio", "visited_rooms_ratio", "known_goal_entities_ratio"):
            s[k] = xinfo.get(k, 0)
        s["plan_followed"] = int(bool(ev.get("plan_followed", 0)))
        s["plan_command_success_ratio"] = ev.get("plan_command_success_ratio", 0)
        s["bad_plan_followed"] = int(bool(ev.get("bad_plan_followed", 0)))
        turn_scores[str(i)] = s
        invalid += s["Violated Request Count"]
        hallucinations += s["hallucination"]
        successes += int("action_info" in ev)
        finished = finished or "adventure_finished" in ev
        turn_limit = turn_limit or "turn_limit_reached" in ev
        reply = next((e["action"]["content"] for e in turn if e.get("from") == "Player 1"), "")
        commands.append(" ".join(str(reply).lower().split()))
    n = len(turn_scores)
    episode = {k: sum(t[k] for t in turn_scores.values()) for k in
               ["Violated Request Count", "Parsed Request Count", "Request Count"]}
    episode["Request Success Ratio"] = episode["Parsed Request Count"] / n if n else 0.0
    episode["hallucination_count"] = hallucinations
    for k in ["action_parsing_fail", "action_resolution_fail", *FAIL_TYPES]:
        episode[k] = sum(t[k] for t in turn_scores.values())
    episode["successful_actions"] = successes
    episode["turn_limit_loss"] = int(turn_limit)
    aborted = invalid > 0 or turn_limit
    success = finished and not aborted
    ratio = len(goals_now) / goal_count
    if success and par is not None:
        over = n - par
        turn_ratio = 1 - over / (max_turns - par) if max_turns != par else 1.0
        episode.update({"turns_over_par": over, "turn_ratio": turn_ratio, "finish_speed": 1 - turn_ratio})
    else:
        episode.update({"turns_over_par": NAN, "turn_ratio": NAN, "finish_speed": NAN})
    episode["achieved_goal_ratio"] = ratio
    episode.update({"Aborted": int(aborted), "Success": int(success), "Lose": int(not success and not aborted),
                    "Main Score": NAN if aborted else 100.0 * ratio})
    followed = [t["plan_followed"] for t in turn_scores.values()]
    episode["plan_followed_ratio"] = sum(followed) / n if n else 0.0
    episode["plan_average_viability_ratio"] = (sum(t["plan_command_success_ratio"] for t in turn_scores.values()) / n
                                               if n else 0.0)
    bad = sum(t["bad_plan_followed"] for t in turn_scores.values())
    episode["bad_plan_follow_ratio"] = bad / n if n else 0.0
    episode["bad_plan_dismiss_ratio"] = 1.0 - episode["bad_plan_follow_ratio"]
    # ours
    repeats = sum(1 for i, c in enumerate(commands) if c in commands[:i])
    episode["repetition_rate"] = repeats / n if n else 0.0
    episode["par_given"] = par
    episode["par_exact"] = exact_par
    tr = episode["turn_ratio"]
    episode["full_rating"] = ratio * tr if not math.isnan(tr) else NAN
    return {"turn scores": turn_scores, "episode scores": episode}


def score_tree(root: str | Path, exact_par=None) -> list[Path]:
    """Write scores.json for every episode under ``root``; returns the files written."""
    written = []
    for path in sorted(Path(root).rglob("interactions.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        par = exact_par(path.parent) if exact_par else None
        write_json(path.parent / "scores.json", score_interactions(data, par))
        written.append(path.parent / "scores.json")
    return written
