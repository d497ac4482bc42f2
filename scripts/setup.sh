#!/usr/bin/env bash
# Installs the workspace on a fresh machine: pinned pnpm, then the frozen lockfile.
set -euo pipefail
cd "$(dirname "$0")/.."
want=12.4.2
if ! command -v pnpm >/dev/null 2>&1 || [ "$(pnpm --version)" != "$want" ]; then
  npm install -g "pnpm@$want" >/dev/null
fi
# better-sqlite3 builds from source here: point node-gyp at the system Node headers when they exist.
if [ -d /usr/include/node ]; then export npm_config_nodedir=/usr; fi
pnpm install --frozen-lockfile
