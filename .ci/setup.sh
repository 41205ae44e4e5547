#!/usr/bin/env bash
# Everything the test suite needs, installed once into the active venv and the machine:
#   - this project (editable) with the extras the tests use: test, web, gym, openenv (OpenEnv),
#     anthropic, fd (Fast Downward), ray, zmachine (Jericho);
#   - clemcore 3.7.2's light route (.ci/clemcore.sh), which checks the records;
#   - Debian's chromium (what is served to browsers), tmux (the app in a real terminal) and
#     inform6-compiler with inform6-library (stories/build.sh rebuilds the test games):
#     apt-get when run as root where apt-get is (as CI runs); otherwise it says what to install.
# The tests install nothing themselves: a missing package or program fails, naming this script.
# Idempotent: a second run installs nothing new. Usage, from a clone, in a venv:
#   python3 -m venv .venv && . .venv/bin/activate && bash .ci/setup.sh && pytest
set -euo pipefail
cd "$(dirname "$0")/.."
PY="${PYTHON:-python}"

"$PY" -c 'import sys; sys.exit(sys.prefix == sys.base_prefix)' || {
    echo "setup.sh installs into the active venv and none is active: python3 -m venv .venv && . .venv/bin/activate" >&2
    exit 1
}

# programs pip cannot install
missing=()
command -v tmux >/dev/null || missing+=(tmux)
command -v chromium >/dev/null || command -v chromium-browser >/dev/null || missing+=(chromium)
command -v inform6 >/dev/null || missing+=(inform6-compiler)
[ -f /usr/share/inform6/library/parser.h ] || missing+=(inform6-library)
if ((${#missing[@]})); then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
        export DEBIAN_FRONTEND=noninteractive
        apt-get update -qq && apt-get install -y -qq "${missing[@]}" >/dev/null
    else
        echo "setup.sh: the tests also need ${missing[*]}; install as root: apt-get install ${missing[*]}" >&2
        echo "(or your system's packages of the same names); the tests that drive them fail until then" >&2
    fi
fi

# the project and every extra the tests use, then clemcore's light route, installed by uv (pip brings
# uv first): it resolves and unpacks from its cache in seconds where pip takes minutes. --compile-bytecode
# as pip does by default: without it every process would compile what it imports where
# PYTHONDONTWRITEBYTECODE is set
"$PY" -m uv --version >/dev/null 2>&1 || "$PY" -m pip install -q --disable-pip-version-check "uv>=0.4"
"$PY" -m uv pip install -q --compile-bytecode --python "$("$PY" -c 'import sys; print(sys.executable)')" \
    -e '.[test,web,gym,openenv,anthropic,fd,ray,zmachine]'
PYTHON="$PY" bash .ci/clemcore.sh
# bytecode written once here: where PYTHONDONTWRITEBYTECODE is set, every test worker and every process the
# tests start would otherwise compile the package again (a file changed later is compiled as usual)
"$PY" -m compileall -q tui_adventure tests benchmarks >/dev/null
# and the test modules as pytest rewrites their asserts: pytest reads its cached rewritten modules even
# where PYTHONDONTWRITEBYTECODE keeps it from writing them, so one collection with writing allowed saves
# each xdist worker rewriting every test module on every run (a test file changed later is rewritten).
# syrupy off: it fails a bare collection for the snapshots no test ran
env -u PYTHONDONTWRITEBYTECODE "$PY" -m pytest --collect-only -q -n 0 -p no:cacheprovider -p no:syrupy >/dev/null 2>&1 ||
    echo "setup.sh: collecting the tests failed: pytest --collect-only -n 0 says why" >&2
echo "setup.sh: done; run the tests with: pytest"
