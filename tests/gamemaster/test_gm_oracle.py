"""Whole episodes against upstream's own game master (issue 4).

``tests/data/gm_oracle_records.tar.gz`` holds the records that the real
clemcore 3.7.2 wrote while running clembench's adventuregame game master on 28
scripted cases. Each case is played here again through our Episode and
Recorder on the same instance, and our files must say what upstream's say:
the same events in the same order with the same contents, and the same
scores from our scorer (on our records and on upstream's).

Upstream lists many things by iterating Python sets, so their order follows
the hash seed of the run (PYTHONHASHSEED=0 there) and cannot be reproduced:
those lists are compared as multisets, room texts in canonical form (see
``canonical``), and the terminal list of lark's "No terminal matches" text as
a set. Everything else, dict key order included, must be identical.
"""

from __future__ import annotations

import json
import math
import re
import tarfile
from functools import lru_cache
from pathlib import Path

import pytest

from clem_helpers import world
from conftest import ROOT
from tui_adventure.instances.canonical import canonical
from tui_adventure.records.recorder import Recorder
from tui_adventure.gamemaster.scoring import score_interactions
from tui_adventure.gamemaster.episode import Episode

TARBALL = ROOT / "tests" / "data" / "gm_oracle_records.tar.gz"


def _read_cases() -> list[dict]:
    with tarfile.open(TARBALL) as tar:
        member = next(m for m in tar.getmembers() if m.name.rstrip("/").endswith("cases.jsonl"))
        text = tar.extractfile(member).read().decode("utf-8")
    return [json.loads(line) for line in text.splitlines() if line.strip()]


CASES = _read_cases()
PLAYED = [c for c in CASES if c["status"] == "completed"]


@pytest.fixture(scope="session")
def ours(tmp_path_factory):
    """Each case played once per session: case name -> our instance directory."""
    played: dict[str, Path] = {}

    def get(case: dict) -> Path:
        if case["case"] not in played:
            played[case["case"]] = play_case(case, tmp_path_factory.mktemp(case["case"][:2]))[1]
        return played[case["case"]]

    return get


@pytest.fixture(scope="session")
def oracle(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("gm_oracle")
    with tarfile.open(TARBALL) as tar:
        tar.extractall(root, filter="data")
    return root


def upstream_dir(oracle: Path, case: dict) -> Path:
    return oracle / case["instance_dir"].split("/gm-oracle/", 1)[1]


def as_sent(case: dict, reply: str) -> str:
    """What upstream's game master received: API backends strip the model's text, the keyboard does not."""
    return reply.strip() if case["route"] != "human" else reply


# -- playing a case through our loop ----------------------------------------------
def play_case(case: dict, root: Path) -> tuple[Episode, Path]:
    w = world(case["experiment"], case["game_id"])
    episode = Episode(w)
    backend = "_player_human" if case["route"] == "human" else "openai_compatible"
    recorder = Recorder(root, w, case["route"], backend=backend)
    recorder.start(episode)
    for reply in case["replies"]:
        if episode.ended:        # upstream's game master stopped here too (the turn counts are compared)
            break
        prompt = list(episode.messages)
        turn = episode.submit(as_sent(case, reply))
        call = None if case["route"] == "human" else {"manipulated_prompt_obj": prompt}
        recorder.log_turn(episode, turn, call=call)
        if episode.ended:
            recorder.finish(episode)
    assert episode.ended
    return episode, recorder.dir


# -- comparing records -------------------------------------------------------------
SET_LISTS = {"known_entities", "visited_rooms", "known_goal_entities", "effective_epistemic_gain_facts"}


def _multiset(items: list) -> list:
    return sorted(items, key=lambda x: json.dumps(x))


def _lark(arg: str) -> str:
    """lark's "No terminal matches" text with its terminal list in a fixed order (lark builds it from a set)."""
    if not arg.startswith("No terminal matches") or "Expected one of: \n" not in arg:
        return arg
    head, tail = arg.split("Expected one of: \n", 1)
    items = sorted(x for x in tail.split("\n") if x)
    return head + "Expected one of: \n" + "\n".join(items) + "\n"


def norm_info(info: dict) -> dict:
    out = {}
    for k, v in info.items():
        if k == "exploration_info":
            v = {ek: (_multiset(ev) if ek in SET_LISTS else ev) for ek, ev in v.items()}
        elif k == "arg" and isinstance(v, str) and info.get("fail_type") == "lark_exception":
            v = _lark(v)
        out[k] = v
    return out


def norm_event(event: dict) -> dict:
    a = event["action"]
    kind, content = a["type"], a["content"]
    if kind == "send message":
        content = canonical(content)
    elif kind in ("action_info", "action_fail"):
        content = norm_info(content)
    elif kind in ("goal_status", "game_result"):
        content = {k: (_multiset(v) if k == "goal_states_achieved" else v) for k, v in content.items()}
    elif kind == "adventure_finished":
        content = _multiset(content)
    elif kind == "plan_results":
        content = [[_multiset(goals), canonical(text), norm_info(info)] for goals, text, info in content]
    out = {k: v for k, v in event.items() if k not in ("timestamp", "action")}
    out["action"] = {**{k: v for k, v in a.items() if k != "content"}, "content": content}
    return out


_PLACE = re.compile(r"^The (.+?) is (?:on|in) the (.+?)\.$")


def _placements(sentences: set) -> dict:
    out: dict = {}
    for sentence in sentences:
        m = _PLACE.match(sentence)
        if m:
            out.setdefault(m.group(1), set()).add(sentence)
    return out


def same_text(ours: str, theirs: str) -> bool:
    """Equal in canonical form, or differing only where a thing is in two places at once.

    A ``put`` of a thing that was not taken first leaves it on (or in) two
    receptacles. Upstream's examine text then names the first of them in its
    set order, which follows the hash seed; ours names both. Every other
    sentence must agree.
    """
    a, b = canonical(ours), canonical(theirs)
    if a == b:
        return True
    sa, sb = set(_SENTENCES.split(a)), set(_SENTENCES.split(b))
    extra, missing = sa - sb, sb - sa
    if missing:
        return False
    ours_at, theirs_at = _placements(sa), _placements(sb)
    return all(m and m.group(1) in theirs_at and len(theirs_at[m.group(1)]) == 1
               and theirs_at[m.group(1)] < ours_at[m.group(1)]
               for m in map(_PLACE.match, extra))


_SENTENCES = re.compile(r"(?<=[.!?])\s+")


def reconcile(ours_event: dict, theirs_event: dict) -> dict:
    """Our event with each text that ``same_text`` accepts replaced by upstream's."""
    a, b = ours_event["action"], theirs_event["action"]
    if a["type"] != b["type"]:
        return ours_event
    if a["type"] == "send message" and same_text(a["content"], b["content"]):
        return {**ours_event, "action": {**a, "content": b["content"]}}
    if a["type"] == "plan_results" and len(a["content"]) == len(b["content"]):
        content = [[g, tb if same_text(ta, tb) else ta, i]
                   for (g, ta, i), (_, tb, _) in zip(a["content"], b["content"])]
        return {**ours_event, "action": {**a, "content": content}}
    return ours_event


def first_difference(a, b, path: str = "") -> str:
    if isinstance(a, dict) and isinstance(b, dict):
        if list(a) != list(b):
            return f"{path}: keys {list(a)} != {list(b)}"
        for k in a:
            d = first_difference(a[k], b[k], f"{path}.{k}")
            if d:
                return d
        return ""
    if isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            return f"{path}: {len(a)} items != {len(b)}: {json.dumps(a)[:600]} != {json.dumps(b)[:600]}"
        for i, (x, y) in enumerate(zip(a, b)):
            d = first_difference(x, y, f"{path}[{i}]")
            if d:
                return d
        return ""
    return "" if json.dumps(a) == json.dumps(b) else f"{path}: {json.dumps(a)[:600]} != {json.dumps(b)[:600]}"


def differences(ours: dict, theirs: dict) -> tuple[list[str], int]:
    """Every way our interactions.json differs from upstream's, and how many events were compared."""
    diffs = []
    for key in ("meta", "players", "adventure_info"):
        if json.dumps(ours.get(key)) != json.dumps(theirs.get(key)):
            diffs.append(f"{key}: ours {ours.get(key)} != upstream {theirs.get(key)}")
    if list(ours) != list(theirs):
        diffs.append(f"top-level keys: ours {list(ours)} != upstream {list(theirs)}")
    if len(ours["turns"]) != len(theirs["turns"]):
        diffs.append(f"turns: ours {len(ours['turns'])} != upstream {len(theirs['turns'])}")
    compared = 0
    for i, (a, b) in enumerate(zip(ours["turns"], theirs["turns"])):
        kinds_a = [e["action"]["type"] for e in a]
        kinds_b = [e["action"]["type"] for e in b]
        if kinds_a != kinds_b:
            diffs.append(f"turn {i} events: ours {kinds_a} != upstream {kinds_b}")
            continue
        for ea, eb in zip(a, b):
            compared += 1
            na, nb = norm_event(reconcile(ea, eb)), norm_event(eb)
            if json.dumps(na) != json.dumps(nb):
                diffs.append(f"turn {i} {ea['action']['type']}: {first_difference(na, nb)}")
    return diffs, compared


def score_differences(ours: dict, theirs: dict) -> list[str]:
    """Upstream's keys first, in upstream's order, with equal values (NaN equals NaN); ours may follow."""
    diffs = []

    def same(x, y) -> bool:
        return json.dumps(x) == json.dumps(y)   # 1 != 1.0 here on purpose: types are part of the file

    for part in ("turn scores", "episode scores"):
        a, b = ours[part], theirs[part]
        pairs = list(a.items()) if part == "turn scores" else [("episode", a)]
        want = b if part == "turn scores" else {"episode": b}
        if part == "turn scores" and list(a) != list(b):
            diffs.append(f"turn score keys: ours {list(a)} != upstream {list(b)}")
        for key, got in pairs:
            exp = want.get(key)
            if exp is None:
                continue
            if list(got)[:len(exp)] != list(exp):
                diffs.append(f"{part} {key} key order: ours {list(got)} != upstream {list(exp)}")
            for k, v in exp.items():
                if k not in got or not same(got[k], v):
                    diffs.append(f"{part} {key} {k}: ours {got.get(k, '<missing>')} != upstream {v}")
    return diffs


@lru_cache(maxsize=None)
def _json(path: str) -> dict:
    return json.loads(Path(path).read_text(encoding="utf-8"))


# -- the cases ---------------------------------------------------------------------
@pytest.mark.parametrize("case", PLAYED, ids=[c["case"] for c in PLAYED])
def test_interactions_match_upstream(case, oracle, ours):
    theirs = _json(str(upstream_dir(oracle, case) / "interactions.json"))
    diffs, compared = differences(_json(str(ours(case) / "interactions.json")), theirs)
    assert not diffs, f"{len(diffs)} differences in {compared} events:\n" + "\n".join(diffs[:20])
    assert compared == sum(len(t) for t in theirs["turns"])


@pytest.mark.parametrize("case", PLAYED, ids=[c["case"] for c in PLAYED])
def test_requests_match_upstream(case, oracle, ours):
    ours = _json(str(ours(case) / "player_1.requests.json"))
    theirs = _json(str(upstream_dir(oracle, case) / "player_1.requests.json"))
    assert ours["meta"] == theirs["meta"]
    assert [c["round"] for c in ours["calls"]] == [c["round"] for c in theirs["calls"]]
    for a, b in zip(ours["calls"], theirs["calls"]):
        pa, pb = a["call"]["manipulated_prompt_obj"], b["call"]["manipulated_prompt_obj"]
        # a model sees its whole history, a person the last message (the provider's raw response is not ours to copy)
        assert type(pa) is type(pb)
        pa, pb = (pa, pb) if isinstance(pa, list) else ([pa], [pb])
        assert [(m["role"], canonical(m["content"])) for m in pa] == [(m["role"], canonical(m["content"])) for m in pb]
        assert a["call"]["raw_response_obj"]["clem_player"]["response"] == \
            b["call"]["raw_response_obj"]["clem_player"]["response"]


@pytest.mark.parametrize("case", PLAYED, ids=[c["case"] for c in PLAYED])
def test_scores_of_our_records_match_upstream(case, oracle, ours):
    ours = score_interactions(_json(str(ours(case) / "interactions.json")))
    theirs = _json(str(upstream_dir(oracle, case) / "scores.json"))
    diffs = score_differences(ours, theirs)
    assert not diffs, "\n".join(diffs[:30])


@pytest.mark.parametrize("case", PLAYED, ids=[c["case"] for c in PLAYED])
def test_our_scorer_on_upstream_records(case, oracle):
    d = upstream_dir(oracle, case)
    ours = score_interactions(_json(str(d / "interactions.json")))
    diffs = score_differences(ours, _json(str(d / "scores.json")))
    assert not diffs, "\n".join(diffs[:30])


def test_first_reply_done_without_a_plan_is_played(tmp_path):
    """Case b5: upstream's game master crashes (IndexError on the empty plan history, error.json, no
    interactions). We do not reproduce the crash: a planning reply without any plan so far counts as an
    empty plan, so the episode ends normally as an early ``done`` (a loss with a hallucinated finish)."""
    case = next(c for c in CASES if c["case"].startswith("b5_"))
    assert case["status"] == "error"
    episode, d = play_case(case, tmp_path)
    assert (d / "completed.json").exists() and not (d / "error.json").exists()
    turn = json.loads((d / "interactions.json").read_text())["turns"][0]
    events = {e["action"]["type"]: e["action"]["content"] for e in turn}
    assert [e["action"]["type"] for e in turn][3:] == [
        "action_info", "goal_status", "current_plan", "plan_length", "plan_results",
        "plan_command_success_ratio", "model_done", "game_result"]
    assert events["current_plan"] == "[]" and events["plan_length"] == 0 and events["plan_results"] == []
    assert events["plan_command_success_ratio"] == 0.0
    scores = score_interactions(json.loads((d / "interactions.json").read_text()))["episode scores"]
    assert (scores["Aborted"], scores["Success"], scores["Lose"], scores["hallucination_count"]) == (0, 0, 1, 1)
    assert scores["Main Score"] == 0.0 and math.isnan(scores["turns_over_par"])
