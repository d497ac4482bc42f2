#!/usr/bin/env node
// Proves that each layer rule of .dependency-cruiser.cjs can fire: a rule that cannot fail is worth nothing.
// Copies the package sources into a temporary tree, plants one violation at a time, and expects
// dependency-cruiser to exit non-zero naming that rule.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const depcruise = path.join(root, 'node_modules/.bin/depcruise');

const plants = [
  { rule: 'core-imports-no-workspace-package', file: 'packages/core/src/planted.ts', code: "export * from '../../client/src/index.ts';\n" },
  { rule: 'core-imports-no-io-library', file: 'packages/core/src/planted.ts', code: "export { request } from 'undici';\n", link: ['packages/core/node_modules/undici', 'packages/transport-openai/node_modules/undici'] },
  { rule: 'providers-import-only-http-and-core', file: 'packages/transport-openai/src/planted.ts', code: "export * from '../../backend-redis/src/index.ts';\n" },
  { rule: 'providers-import-only-http-and-core', file: 'packages/transport-monkeyocr/src/planted.ts', code: "export * from '../../transport-openai/src/index.ts';\n" },
  { rule: null, file: 'packages/transport-openai/src/planted.ts', code: "export { createAgent } from '@pgw/http';\n" },
  { rule: 'http-imports-only-core', file: 'packages/http/src/planted.ts', code: "export * from '../../middleware/src/index.ts';\n" },
  { rule: 'middleware-imports-only-core', file: 'packages/middleware/src/planted.ts', code: "export * from '../../http/src/index.ts';\n" },
  { rule: 'middleware-imports-no-io-library', file: 'packages/middleware/src/planted.ts', code: "export { request } from 'undici';\n", link: ['packages/middleware/node_modules/undici', 'packages/transport-openai/node_modules/undici'] },
  { rule: 'adapters-import-only-core', file: 'packages/backend-memory/src/planted.ts', code: "export * from '../../http/src/index.ts';\n" },
  { rule: 'backends-import-no-http-library', file: 'packages/backend-memory/src/planted.ts', code: "export { request } from 'undici';\n", link: ['packages/backend-memory/node_modules/undici', 'packages/transport-openai/node_modules/undici'] },
  { rule: 'adapters-import-only-core', file: 'packages/backend-memory/src/planted.ts', code: "export * from '../../middleware/src/index.ts';\n" },
  { rule: 'middleware-imports-only-core', file: 'packages/middleware/src/planted.ts', code: "export * from '../../backend-memory/src/index.ts';\n" },
  { rule: 'client-loads-optional-adapters-dynamically', file: 'packages/client/src/planted.ts', code: "export * from '@pgw/telemetry-pg';\n" },
  { rule: 'adapters-import-only-core', file: 'packages/telemetry-otel/src/planted.ts', code: "export * from '../../middleware/src/index.ts';\n" },
  { rule: 'adapters-import-only-core', file: 'packages/telemetry-otel/src/planted.ts', code: "export * from '../../transport-openai/src/index.ts';\n" },
  { rule: 'client-loads-optional-adapters-dynamically', file: 'packages/client/src/planted.ts', code: "export * from '@pgw/telemetry-otel';\n" },
  { rule: null, file: 'packages/client/src/planted.ts', code: "export const load = () => import('@pgw/telemetry-pg');\n" },
  { rule: null, file: 'packages/client/src/planted.ts', code: "export { createAgent } from '../../http/src/index.ts';\n" },
  { rule: 'wire-imports-only-core-and-client', file: 'packages/wire/src/planted.ts', code: "export * from '../../middleware/src/index.ts';\n" },
  { rule: 'wire-imports-client-types-only', file: 'packages/wire/src/planted.ts', code: "export { GatewayClient } from '../../client/src/index.ts';\n" },
  { rule: null, file: 'packages/wire/src/planted.ts', code: "export type { ChatOptions } from '../../client/src/index.ts';\nexport { EFFORTS } from '../../core/src/index.ts';\n" },
  { rule: 'wire-imports-no-io', file: 'packages/wire/src/planted.ts', code: "export { fastify } from 'fastify';\n", link: ['packages/wire/node_modules/fastify', 'packages/server/node_modules/fastify'] },
  { rule: 'wire-imports-no-node-builtin', file: 'packages/wire/src/planted.ts', code: "export { createServer } from 'node:net';\n" },
  { rule: 'server-imports-only-client-core-wire-and-batch', file: 'packages/server/src/planted.ts', code: "export * from '../../middleware/src/index.ts';\n" },
  { rule: null, file: 'packages/server/src/planted.ts', code: "export * from '../../client/src/index.ts';\n" },
  { rule: 'batch-imports-only-client-core-and-wire', file: 'packages/batch/src/planted.ts', code: "export * from '../../telemetry-sqlite/src/index.ts';\n" },
  { rule: null, file: 'packages/batch/src/planted.ts', code: "export * from '../../client/src/index.ts';\n" },
  { rule: 'fleet-libraries-in-their-adapters', file: 'packages/batch/src/planted.ts', code: "export { Redis } from 'ioredis';\n", link: ['packages/batch/node_modules/ioredis', 'packages/backend-redis/node_modules/ioredis'] },
  { rule: 'fleet-libraries-in-their-adapters', file: 'packages/batch/src/planted.ts', code: "export { Queue } from 'bullmq';\n", link: ['packages/batch/node_modules/bullmq', 'packages/batch-bullmq/node_modules/bullmq'] },
  { rule: 'fleet-libraries-in-their-adapters', file: 'packages/server/src/planted.ts', code: "export { default as pg } from 'pg';\n" },
  { rule: 'server-loads-keys-pg-dynamically', file: 'packages/server/src/planted.ts', code: "export * from '../../keys-pg/src/index.ts';\n" },
  { rule: null, file: 'packages/server/src/planted.ts', code: "export const load = () => import('../../keys-pg/src/index.ts');\n" },
  { rule: null, file: 'packages/batch-bullmq/src/planted.ts', code: "export { Queue } from 'bullmq';\n" },
  { rule: 'batch-loads-its-fleet-engine-dynamically', file: 'packages/batch/src/planted.ts', code: "export * from '@pgw/batch-bullmq';\n" },
  { rule: null, file: 'packages/batch/src/planted.ts', code: "export const load = () => import('@pgw/batch-bullmq');\n" },
  { rule: 'batch-bullmq-imports-only-core', file: 'packages/batch-bullmq/src/planted.ts', code: "export * from '../../client/src/index.ts';\n" },
  { rule: 'batch-bullmq-imports-only-core', file: 'packages/batch-bullmq/src/planted.ts', code: "export * from '../../batch/src/index.ts';\n" },
  { rule: 'only-the-cli-imports-server', file: 'packages/client/src/planted.ts', code: "export * from '../../server/src/index.ts';\n" },
  { rule: 'ai-sdk-imports-only-client-http-and-core', file: 'packages/ai-sdk/src/planted.ts', code: "export * from '../../middleware/src/index.ts';\n" },
  { rule: null, file: 'packages/ai-sdk/src/planted.ts', code: "export { GatewayClient } from '../../client/src/index.ts';\n" },
  { rule: 'no-package-imports-ai-sdk', file: 'packages/client/src/planted.ts', code: "export * from '../../ai-sdk/src/index.ts';\n" },
  { rule: 'no-deep-imports', file: 'packages/client/src/planted.ts', code: "export * from '../../core/src/planted-inner.ts';\n", extra: ['packages/core/src/planted-inner.ts', 'export const inner = 1;\n'] },
  { rule: 'no-circular', file: 'packages/core/src/planted.ts', code: "import './planted-b.ts';\nexport const a = 1;\n", extra: ['packages/core/src/planted-b.ts', "import './planted.ts';\nexport const b = 2;\n"] },
];

// The copy keeps each package's node_modules links (pnpm's relative symlinks then resolve inside the
// copy for workspace packages) and points the root node_modules at the real store.
function copyTree(dest) {
  for (const name of ['.dependency-cruiser.cjs', 'tsconfig.base.json']) fs.copyFileSync(path.join(root, name), path.join(dest, name));
  fs.symlinkSync(path.join(root, 'node_modules'), path.join(dest, 'node_modules'));
  for (const pkg of fs.readdirSync(path.join(root, 'packages'))) {
    const from = path.join(root, 'packages', pkg);
    const to = path.join(dest, 'packages', pkg);
    fs.mkdirSync(to, { recursive: true });
    fs.copyFileSync(path.join(from, 'package.json'), path.join(to, 'package.json'));
    fs.cpSync(path.join(from, 'src'), path.join(to, 'src'), { recursive: true });
    if (fs.existsSync(path.join(from, 'node_modules'))) {
      fs.cpSync(path.join(from, 'node_modules'), path.join(to, 'node_modules'), { recursive: true, verbatimSymlinks: true });
    }
  }
}

function cruise(dir) {
  return spawnSync(depcruise, ['packages', '--config', '.dependency-cruiser.cjs', '--output-type', 'err'], { cwd: dir, encoding: 'utf8' });
}

let failures = 0;
const baseline = fs.mkdtempSync(path.join(os.tmpdir(), 'pgw-layers-'));
try {
  copyTree(baseline);
  const clean = cruise(baseline);
  if (clean.status !== 0) {
    console.error(`layer self-check: the unplanted copy already fails:\n${clean.stdout}${clean.stderr}`);
    failures++;
  }
} finally {
  fs.rmSync(baseline, { recursive: true, force: true });
}

for (const plant of plants) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pgw-layers-'));
  try {
    copyTree(dir);
    fs.writeFileSync(path.join(dir, plant.file), plant.code);
    if (plant.extra) fs.writeFileSync(path.join(dir, plant.extra[0]), plant.extra[1]);
    // A package whose tests use the library already has it installed: the plant needs no link then.
    if (plant.link && !fs.existsSync(path.join(dir, plant.link[0]))) {
      fs.mkdirSync(path.dirname(path.join(dir, plant.link[0])), { recursive: true });
      fs.symlinkSync(fs.realpathSync(path.join(root, plant.link[1])), path.join(dir, plant.link[0]));
    }
    const result = cruise(dir);
    const output = `${result.stdout}${result.stderr}`;
    if (plant.rule === null) {
      if (result.status !== 0) {
        console.error(`layer self-check: the allowed plant ${plant.file} was rejected\n${output}`);
        failures++;
      } else {
        console.log(`layer self-check: allowed plant ${plant.file} passes`);
      }
    } else if (result.status === 0 || !output.includes(plant.rule)) {
      console.error(`layer self-check: planting ${plant.file} did not trip '${plant.rule}' (exit ${result.status})\n${output}`);
      failures++;
    } else {
      console.log(`layer self-check: '${plant.rule}' fires on ${plant.file}`);
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

if (failures > 0) process.exit(1);
