#!/usr/bin/env bash
# Prints the bin directory of the npm package <name@version> (exact pin; its node_modules is the
# folder above), installed once with `npm install` into a cache folder outside the repository (PGW_TOOL_CACHE, default
# ~/.cache/pgw/npm-tools/<name@version>, a scope's slash as '+'); later runs reuse it. For large
# test-only clients (apps/agents), which must never be workspace dependencies. With <bin>, the install
# counts only once `<bin> --version` runs (a package whose postinstall puts its native binary in
# place, as Claude Code's, is checked to have done so).
set -euo pipefail
spec=${1:?usage: fetch-npm-tool.sh <name@version> [<bin>]}
bin=${2:-}
[[ "$spec" =~ ^(@[a-z0-9._-]+/)?[a-z0-9._-]+@[0-9][0-9A-Za-z.+-]*$ ]] || { echo "fetch-npm-tool: $spec is not <name@exact-version>" >&2; exit 2; }
dir="${PGW_TOOL_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/pgw/npm-tools}/${spec//\//+}"
# The install is complete once the package itself is in place (a library, as the Agents SDK, has no bin of its own).
installed="node_modules/${spec%@*}/package.json"
if [ ! -f "$dir/$installed" ]; then
  # Installed into a temporary sibling and renamed, so an interrupted fetch never looks complete.
  mkdir -p "$(dirname "$dir")"
  tmp=$(mktemp -d "$dir.partial.XXXXXX")
  trap 'rm -rf "$tmp"' EXIT
  # The npm_config_* a pnpm script or setup.sh exports (nodedir, frozen lockfile …) are not for this
  # install; the registry, cache and proxy settings of the user's npmrc still apply.
  while IFS= read -r name; do unset "$name"; done < <(env | sed -n 's/^\(npm_config_[A-Za-z0-9_]*\)=.*/\1/p' | grep -viE '^npm_config_(registry|cache|userconfig|globalconfig|.*proxy|ca|cafile|strict_ssl)$' || true)
  # --prefix moves npm's global config to <prefix>/etc/npmrc; the machine's own (its registry CA, say)
  # is read where npm finds it without the flag.
  globalconfig=$(npm config get globalconfig)
  npm install --prefix "$tmp" --globalconfig "$globalconfig" --no-save --no-package-lock --no-audit --no-fund --loglevel=error "$spec" >&2
  [ -f "$tmp/$installed" ] || { echo "fetch-npm-tool: $spec is not in node_modules after its install" >&2; exit 1; }
  if [ -n "$bin" ]; then
    "$tmp/node_modules/.bin/$bin" --version </dev/null >&2 || { echo "fetch-npm-tool: $spec: '$bin --version' failed" >&2; exit 1; }
  fi
  rm -rf "$dir"
  mv "$tmp" "$dir"
fi
echo "$dir/node_modules/.bin"
