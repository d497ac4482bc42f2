#!/usr/bin/env bash
# Installs the workspace for the Node that runs it: pinned pnpm, then the frozen lockfile, with native
# modules (better-sqlite3) built for this Node. Run it again after switching Node: pnpm keeps a native
# binary built by another Node, so one that does not load here is rebuilt.
set -euo pipefail
cd "$(dirname "$0")/.."
want=12.4.2
if ! command -v pnpm >/dev/null 2>&1 || [ "$(pnpm --version)" != "$want" ]; then
  npm install -g "pnpm@$want" >/dev/null
fi
# node-gyp builds against the headers of exactly this Node, or (none here) fetches them or a prebuilt
# binary; set even when empty, so a nodedir in an npmrc cannot point the build at another Node.
npm_config_nodedir=$(node scripts/native-build.mjs nodedir)
export npm_config_nodedir
echo "setup: node $(node --version), native headers: ${npm_config_nodedir:-fetched for this Node}"
pnpm install --frozen-lockfile
if ! node scripts/native-build.mjs check 2>/dev/null; then
  # shellcheck disable=SC2046 # one word per module name
  pnpm rebuild $(node scripts/native-build.mjs names)
  node scripts/native-build.mjs check
fi
