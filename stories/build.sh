#!/usr/bin/env bash
# Rebuild the story files in stories/ from their Inform 6 sources in stories/src/, with Debian's
# inform6 (package inform6-compiler) and its standard library (package inform6-library, 6.12).
# Each source's `Serial` is fixed, so a rebuild is byte-identical to the committed file.
# Usage: bash stories/build.sh [OUTPUT_DIR]   (default: stories/ itself)
# INFORM6_LIBRARY overrides the library's folder (default: /usr/share/inform6/library).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
out="${1:-$here}"
lib="${INFORM6_LIBRARY:-/usr/share/inform6/library}"
command -v inform6 >/dev/null || {
    echo "build.sh: inform6 is not on PATH: run bash .ci/setup.sh as root (apt-get install inform6-compiler inform6-library)" >&2
    exit 1
}
[ -f "$lib/parser.h" ] || [ -f "$lib/Parser.h" ] || {
    echo "build.sh: no Inform 6 library in $lib: apt-get install inform6-library, or set INFORM6_LIBRARY" >&2
    exit 1
}
mkdir -p "$out"
# source  versions
games=(
    "lighthouse 5 8"
    "cellar 5"
    "tower 3"   # its own parser: library 6.12 cannot build version 3
)
for entry in "${games[@]}"; do
    read -r name versions <<<"$entry"
    for v in $versions; do
        # -q: no banner; compiled to a temporary name, then renamed: no half-written story file
        inform6 -q "+include_path=$lib" "-v$v" "$here/src/$name.inf" "$out/.$name.z$v.part" >&2
        mv -f "$out/.$name.z$v.part" "$out/$name.z$v"
    done
done
