"""Run the REAL clemcore 3.7.2 transcript builder and evaluator on a results tree.

This is not a copy of clemcore's rules: it imports clemcore's own modules
(``clemcore.clemgame.transcripts.builder`` and ``clemcore.clemeval``) and calls
them, so a tree that passes here is one the ``clem transcribe`` / ``clem eval``
code accepts.

clemcore's package ``__init__`` files pull in its whole runtime (backends,
gradio, openenv, pettingzoo, ...), which the light install route
(``bash .ci/clemcore.sh``: ``pip install --no-deps clemcore==3.7.2`` plus
pandas, tqdm, pyyaml, nltk, markdown, pylatex, ordered-set, retry) does not
provide. So the parent packages ``clemcore``, ``clemcore.clemgame``,
``clemcore.clemgame.transcripts`` and ``clemcore.utils`` are put into
``sys.modules`` as empty stubs (real package specs and ``__path__``, but their
``__init__`` never executed), the leaf modules are imported normally through
them, and the stubs are removed again so nothing else in the test process
sees a half-initialised ``clemcore``.

Because clemcore's logging config (in ``clemcore/__init__``) is not loaded,
no ``clembench.log`` is written; the calls still run with the results root as
working directory, as ``clem ... -r .`` would.
"""

from __future__ import annotations

import contextlib
import importlib
import importlib.util
import io
import os
import sys
from functools import lru_cache
from pathlib import Path
from types import ModuleType

CLEMCORE_VERSION = "3.7.2"
INSTALL_HINT = (
    "clemcore {v} is needed to check records against the real clem tools. "
    "Install the light route into the test venv with:  bash .ci/clemcore.sh  (or everything: bash .ci/setup.sh) "
    "(= python -m pip install --no-deps clemcore=={v} && python -m pip install "
    "'pandas>=2.3,<3' tqdm pyyaml nltk markdown pylatex ordered-set retry)"
).format(v=CLEMCORE_VERSION)

# Packages whose __init__ must NOT run (they import gradio, backends, ...).
_STUB_PACKAGES = ("clemcore", "clemcore.clemgame", "clemcore.clemgame.transcripts", "clemcore.clemgame.legacy",
                  "clemcore.utils")
# Third-party modules the two code paths import.
_LIGHT_DEPS = ("pandas", "tqdm", "yaml", "markdown", "pylatex")


class ClemcoreMissing(AssertionError):
    """clemcore (light route) is not installed: a failure, never a skip."""


def _missing() -> list[str]:
    from importlib.metadata import PackageNotFoundError, version

    problems = []
    try:
        found = version("clemcore")
        if found != CLEMCORE_VERSION:
            problems.append(f"clemcore {found} is installed, {CLEMCORE_VERSION} is required")
    except PackageNotFoundError:
        problems.append("clemcore is not installed")
    for mod in _LIGHT_DEPS:
        if importlib.util.find_spec(mod) is None:
            problems.append(f"module {mod!r} is missing")
    return problems


def require_clemcore() -> None:
    """Fail (not skip) with install instructions when clemcore's light route is absent."""
    problems = _missing()
    if problems:
        msg = f"{'; '.join(problems)}. {INSTALL_HINT}"
        try:
            import pytest
        except ImportError:  # used outside pytest
            raise ClemcoreMissing(msg) from None
        pytest.fail(msg, pytrace=False)


@lru_cache(maxsize=None)
def _modules() -> dict[str, ModuleType]:
    """Import clemcore's builder, resources and clemeval without running package __init__s."""
    require_clemcore()
    root_spec = importlib.util.find_spec("clemcore")  # finds, does not execute, a top-level package
    if root_spec is None or not root_spec.submodule_search_locations:
        raise ClemcoreMissing(f"clemcore package not found. {INSTALL_HINT}")
    pkg_dir = Path(next(iter(root_spec.submodule_search_locations)))

    saved = {k: v for k, v in sys.modules.items() if k == "clemcore" or k.startswith("clemcore.")}
    for k in saved:
        del sys.modules[k]
    try:
        for name in _STUB_PACKAGES:
            d = pkg_dir.joinpath(*name.split(".")[1:])
            spec = importlib.util.spec_from_file_location(
                name, d / "__init__.py", submodule_search_locations=[str(d)]
            )
            stub = importlib.util.module_from_spec(spec)  # NOT exec'd
            sys.modules[name] = stub
            parent, _, child = name.rpartition(".")
            if parent:
                setattr(sys.modules[parent], child, stub)
        mods = {
            "resources": importlib.import_module("clemcore.clemgame.resources"),
            "builder": importlib.import_module("clemcore.clemgame.transcripts.builder"),
            "clemeval": importlib.import_module("clemcore.clemeval"),
            "legacy_scorer": importlib.import_module("clemcore.clemgame.legacy.scorer"),
        }
    finally:
        for k in [k for k in sys.modules if k == "clemcore" or k.startswith("clemcore.")]:
            del sys.modules[k]
        sys.modules.update(saved)
    return mods


@contextlib.contextmanager
def _in_dir(path: Path):
    old = os.getcwd()
    os.chdir(path)
    try:
        yield
    finally:
        os.chdir(old)


def transcribe_all(root) -> list[Path]:
    """Do what ``clem transcribe -r ROOT`` does, but raise instead of logging.

    For every ``interactions.json`` under root: clemcore's ``load_json``,
    ``build_transcript`` and ``build_tex``, stored with clemcore's ``store_file``
    as ``transcript.html`` and ``transcript.tex`` beside it (exactly the steps
    of ``builder.build_transcripts``, which swallows exceptions).
    Returns the written ``transcript.html`` paths, sorted.
    """
    mods = _modules()
    builder, resources = mods["builder"], mods["resources"]
    root = Path(root).resolve()
    files = sorted(root.rglob("interactions.json"))
    if not files:
        raise FileNotFoundError(f"no interactions.json under {root}")
    written = []
    with _in_dir(root):
        for f in files:
            try:
                interactions = resources.load_json(str(f))
                html = builder.build_transcript(interactions)
                resources.store_file(html, "transcript.html", f.parent)
                tex = builder.build_tex(interactions)
                resources.store_file(tex, "transcript.tex", f.parent)
            except Exception as e:
                raise RuntimeError(f"clemcore {CLEMCORE_VERSION} cannot transcribe {f}: {e!r}") from e
            written.append(f.parent / "transcript.html")
    return written


def evaluate(root, quiet: bool = True):
    """Do what ``clem eval -r ROOT`` does; return (results.csv path, results DataFrame).

    The DataFrame is clemcore's own return value (index: model/run-dir names;
    columns: ``"-, clemscore"``, ``"<game>, % Played"``, ``"<game>, Quality Score"``,
    ``"all, Average % Played"``, ``"all, Average Quality Score"``).
    ``raw.csv``, ``results.csv`` and ``results.html`` are written into root.
    """
    clemeval = _modules()["clemeval"]
    root = Path(root).resolve()
    out = io.StringIO()
    with _in_dir(root), contextlib.redirect_stdout(out if quiet else sys.stdout), \
            contextlib.redirect_stderr(out if quiet else sys.stderr):
        try:
            df = clemeval.perform_evaluation(str(root), return_dataframe=True)
        except Exception as e:
            raise RuntimeError(
                f"clemcore {CLEMCORE_VERSION} perform_evaluation({root}) failed: {e!r}\n{out.getvalue()}"
            ) from e
    csv = root / "results.csv"
    if not csv.is_file():
        raise RuntimeError(f"clemcore wrote no {csv}\n{out.getvalue()}")
    return csv, df


def scores_layout(interactions: dict) -> dict:
    """What clemcore's own ``GameScorer.compute_scores`` (the legacy one, which clembench's adventuregame
    builds on, with its "turn scores") puts into a scores.json for ``interactions``, before any game's
    scores: the top-level keys in clemcore's order with the values it copies from the interactions."""
    base = _modules()["legacy_scorer"].GameScorer

    class Layout(base):
        def score_turns(self, interactions):
            pass

        def score_game(self, interactions):
            pass

    scorer = Layout("adventuregame", {}, {})
    scorer.compute_scores(interactions)
    return scorer.scores
