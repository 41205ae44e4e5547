#!/usr/bin/env bash
# Install the "light route" to the real clemcore 3.7.2 (the records format: docs/clembench/RECORDS.md):
# clemcore itself without its declared dependencies (gradio, backends' SDKs, datasets,
# pettingzoo, ...), plus the few packages that clemcore.clemgame.transcripts and
# clemcore.clemeval actually import. tests/clemcore_check.py then imports those modules
# without running clemcore's package __init__.
# Installs into whatever `python` is first on PATH (or $PYTHON): run it in the test venv.
# Idempotent and quiet; 185 MB in a fresh venv.
set -euo pipefail
PY="${PYTHON:-python}"
# clemcore 3.7.2 declares Requires-Python <3.13: say so, not pip's "no matching distribution"
"$PY" -c 'import sys; sys.exit(sys.version_info >= (3, 13))' || {
    echo "clemcore 3.7.2 installs on Python 3.10-3.12 only, and this venv's is $("$PY" --version 2>&1 | cut -d' ' -f2)." >&2
    echo "tui-adventure itself runs on it; for the test suite (which checks records with clemcore) make the venv with python3.12, 3.11 or 3.10." >&2
    exit 1
}
# by uv (pip brings it first where it is missing), compiled as pip would: see setup.sh
"$PY" -m uv --version >/dev/null 2>&1 || "$PY" -m pip install -q --disable-pip-version-check "uv>=0.4"
UV=("$PY" -m uv pip install -q --compile-bytecode --python "$("$PY" -c 'import sys; print(sys.executable)')")
"${UV[@]}" "pandas>=2.3,<3" tqdm pyyaml nltk markdown pylatex ordered-set retry
# --no-deps on purpose: clemcore's other requirements stay out
"${UV[@]}" --no-deps "clemcore==3.7.2"
"$PY" - <<'PY'
from importlib.metadata import version
assert version("clemcore") == "3.7.2", version("clemcore")
PY
