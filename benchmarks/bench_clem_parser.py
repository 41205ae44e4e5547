"""The clembench command parser's speed: a cached parse (a command seen before) and a cold one.

    python benchmarks/bench_clem_parser.py [--n 20000]

The tests check that a repeated command is a cache hit (tests/engine/test_clem_parser.py); the time
each takes is measured here, where a busy machine cannot fail a test: about 9 us a cached parse and
40 us a cold one, measured on a shared 2-core machine (the tests once required under 20 and 300 us).
"""

from __future__ import annotations

import argparse
import json
import time

from tui_adventure.instances.packaged import HOME
from tui_adventure.engine.parsers.clem_parser import ClemParser

TEXTS = ["put book on table", "take the plate from the wooden counter", "go to living room",
         "open refrigerator", "take apple", "look", "done"]


def definitions():
    res = HOME / "resources"
    return [json.loads((res / name).read_text()) for name in
            ("definitions/basic_actions_v2.json", "definitions/home_entities.json",
             "definitions/home_rooms.json", "grammar_core.json")]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=20000, help="cached parses to time (cold: n / 100)")
    n = ap.parse_args().n
    parser = ClemParser.from_definitions(*definitions())
    for t in TEXTS:
        parser.parse(t, "kitchen")
    start = time.perf_counter()
    for i in range(n):
        parser.parse(TEXTS[i % len(TEXTS)], "kitchen", ())
    cached = (time.perf_counter() - start) / n
    cold_n = max(1, n // 100)
    start = time.perf_counter()
    for i in range(cold_n):
        parser._cache.clear()
        parser.parse(TEXTS[i % len(TEXTS)], "kitchen", ())
    cold = (time.perf_counter() - start) / cold_n
    print(f"cached parse: {cached * 1e6:.1f} us   cold parse: {cold * 1e6:.1f} us")


if __name__ == "__main__":
    main()
