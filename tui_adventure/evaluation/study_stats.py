"""A study's own analysis: what the "Study" section of results.html shows.

A Latin square balances learning and fatigue across worlds; whether there was
any is read from the scores by position in the queue. Time per world and
each participant's totals say whether the time limits fit and who struggled.
Everything comes from the records a study writes (docs/studies.md):
``meta.study`` (participant, position in the queue, the world as the study
file names it, the attempt) and ``meta.seconds`` in interactions.json, and
the episode's scores.json. Only finished (scored) episodes of human runs count.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass
from pathlib import Path

from ..engine.metrics import MAIN_SCORE, SUCCESS
from .comparison import is_human, number
from ..records.files import RecordsError, layout_parts, read_json


@dataclass(frozen=True)
class StudyEpisode:
    run: str
    participant: str
    study: str
    position: int | None
    of: int | None
    world: str
    attempt: int | None
    seconds: float | None
    main_score: float | None
    success: float | None
    out_of_time: bool


def _int(value) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def study_episodes(root: Path) -> list[StudyEpisode]:
    """Every scored episode of a human run whose records name a study."""
    out = []
    above = layout_parts(root)
    for path in sorted(Path(root).rglob("interactions.json")):
        parts = above + path.relative_to(root).parts
        if len(parts) < 5 or not is_human(parts[-5]):
            continue
        try:
            meta = (read_json(path) or {}).get("meta") or {}
            scores = (read_json(path.parent / "scores.json") or {}).get("episode scores") or {}
        except (RecordsError, OSError, ValueError, AttributeError):
            continue
        study = meta.get("study") if isinstance(meta, dict) else None
        if not isinstance(study, dict) or not isinstance(scores, dict):
            continue
        out.append(StudyEpisode(
            run=parts[-5], participant=str(study.get("participant", parts[-5])), study=str(study.get("title", "")),
            position=_int(study.get("position")), of=_int(study.get("of")),
            world=str(study.get("world") or "/".join(parts[-4:-1])), attempt=_int(study.get("attempt")),
            seconds=number(meta.get("seconds")), main_score=number(scores.get(MAIN_SCORE)),
            success=number(scores.get(SUCCESS)), out_of_time=meta.get("ended_by") == "time_limit"))
    return out


@dataclass(frozen=True)
class Summary:
    """One row of a study table: its key, how many episodes, and what they have in common."""

    key: str
    n: int
    main_score: float | None      # mean over the episodes with a Main Score (not aborted)
    success: float | None         # share won
    median_seconds: float | None
    total_seconds: float | None
    out_of_time: int
    extra: str = ""


def _summary(key: str, episodes: list[StudyEpisode], extra: str = "") -> Summary:
    scores = [e.main_score for e in episodes if e.main_score is not None]
    wins = [e.success for e in episodes if e.success is not None]
    times = [e.seconds for e in episodes if e.seconds is not None]
    return Summary(key, len(episodes), sum(scores) / len(scores) if scores else None,
                   sum(wins) / len(wins) if wins else None, statistics.median(times) if times else None,
                   sum(times) if times else None, sum(e.out_of_time for e in episodes), extra)


def by_position(episodes: list[StudyEpisode]) -> list[Summary]:
    """Learning and fatigue: the scores of the first, second, ... world each participant played."""
    positions = sorted({e.position for e in episodes if e.position is not None})
    return [_summary(str(p), [e for e in episodes if e.position == p]) for p in positions]


def by_world(episodes: list[StudyEpisode]) -> list[Summary]:
    """Time per world, and how often its time limit ran out."""
    worlds = sorted({e.world for e in episodes})
    return [_summary(w, [e for e in episodes if e.world == w]) for w in worlds]


def by_participant(episodes: list[StudyEpisode]) -> list[Summary]:
    """Each participant's worlds, scores and time; ``extra`` counts restarted worlds (attempts after the first)."""
    out = []
    for who in sorted({e.participant for e in episodes}):
        mine = [e for e in episodes if e.participant == who]
        again = sum(1 for e in mine if (e.attempt or 1) > 1)
        out.append(_summary(who, mine, f"{again} restarted" if again else ""))
    return out
