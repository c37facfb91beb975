#!/usr/bin/env bash
# Runs the demo (scripts/demos/demo.ts, the embedded emulator) on Bun and on Deno, both from the npm registry, installed
# under .tmp/runtimes (ignored; the project does not depend on them). Exits non-zero when either run fails.
#
#   scripts/dev/runtime-smoke.sh
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
dir="$root/.tmp/runtimes"
mkdir -p "$dir"
# Its own package.json allows the two install scripts (npm 11 runs none it was not told to).
echo '{ "private": true, "allowScripts": { "bun": true, "deno": true } }' > "$dir/package.json"
# The binaries are optional dependencies of these packages; their install scripts link them into place.
npm install --prefix "$dir" --no-audit --no-fund --no-save bun@1 deno@2 >/dev/null
bin="$dir/node_modules/.bin"
cd "$root"
export PORTAL_DEMO_TOKEN_FILE="$dir/tokens.json"
echo "--- demo on Bun $("$bin/bun" --version)"
"$bin/bun" scripts/demos/demo.ts
echo "--- demo on $("$bin/deno" --version | head -n 1)"
# Deno resolves the sources' '.js' specifiers to their '.ts' files only with --sloppy-imports.
"$bin/deno" run --allow-all --sloppy-imports scripts/demos/demo.ts
