"""How long adventure eval's paired analysis (paired.csv) takes for a study of a given size.

Synthetic scores, no records on disk: MODELS runs over EXPERIMENTS x 16 instances and PARTICIPANTS people
who each finished 8 of them, the four metrics with varied values (the worst case: no row of equal
differences skips its resampling). Prints the rows and the seconds, best of three.

    python benchmarks/bench_paired.py [MODELS] [PARTICIPANTS] [EXPERIMENTS]
"""

from __future__ import annotations

import random
import sys
import time

from tui_adventure.evaluation.paired import paired


def tree(models: int, participants: int, experiments: int) -> list[tuple]:
    rng = random.Random(1)
    instances = [("adventuregame", f"exp{e}", f"instance_{i}") for e in range(experiments) for i in range(16)]

    def scores() -> dict:
        return {"Main Score": rng.choice([0, 50, 100]), "Success": rng.choice([0, 1]),
                "moves_over_par": rng.randint(0, 5), "progress_rate": rng.random()}
    rows = [(f"model{m}", *i, scores()) for m in range(models) for i in instances]
    rows += [(f"human-p{p}", *i, scores()) for p in range(participants) for i in rng.sample(instances, 8)]
    return rows


def main() -> None:
    models, participants, experiments = (int(a) for a in (sys.argv[1:] + ["5", "20", "4"][len(sys.argv) - 1:]))
    rows = tree(models, participants, experiments)
    best = float("inf")
    for _ in range(3):
        start = time.perf_counter()
        found = paired(rows)
        best = min(best, time.perf_counter() - start)
    print(f"{models} models, {participants} participants, {experiments} experiments: {len(found)} rows of"
          f" paired.csv in {best:.2f} s (best of 3)")


if __name__ == "__main__":
    main()
