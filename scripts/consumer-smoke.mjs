#!/usr/bin/env node
// Consumer smoke test: what a user outside the repository gets. Packs every public package, installs
// the tarballs with npm into a temporary project outside the workspace (third-party dependencies
// come from the registry), then checks that
//   (a) a plain-node ESM script makes a governed chat call against a loopback upstream;
//   (b) a TypeScript consumer typechecks with module/moduleResolution nodenext, skipLibCheck off;
//   (c) @pgw/client alone brings no ioredis / pg / better-sqlite3, asking for the Redis limiter
//       without @pgw/backend-redis fails naming it, and once it is added PGW_LIMITER_BACKEND=redis
//       alone switches the limiter (the call leaves keys of its own unique scope in Redis);
//   (d) with @pgw/telemetry-sqlite added, PGW_TELEMETRY_BACKEND=sqlite writes the call's rows from
//       the recorder's writer thread (dist/sqlite-worker.js on plain node) and the process exits;
//   (e) with @pgw/testkit and vitest added, the chat and embedding model contract suites pass against
//       a model written against the published packages only: the plain-fetch model of
//       docs/writing-a-provider.md (packages/testkit/test/user-model.test.ts), importing @pgw/testkit.
//   (f) @pgw/server added (before (c)'s install) brings no bullmq / ioredis / pg (the fleet batch engine is the optional
//       @pgw/batch-bullmq): PGW_BATCH__ENGINE=bullmq without it fails naming it, and once it is added
//       the same settings open the BullMQ engine (which brings bullmq);
// Needs Redis at REDIS_URL (default redis://127.0.0.1:6379). PGW_SMOKE_KEEP=1 keeps the temp dir.
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { nodeHeadersDir } from './lib/native-build.mjs';
import { publicPackages, root } from './lib/workspace.mjs';

const FORBIDDEN_WITH_CLIENT_ALONE = ['ioredis', 'pg', 'better-sqlite3'];
const FORBIDDEN_WITH_SERVER = ['bullmq', 'ioredis', 'pg'];
const TYPESCRIPT = '5.9.3';
const TYPES_NODE = '20.19.43';
const VITEST = '4.1.12';
const USER_MODEL_TEST = path.join(root, 'packages/testkit/test/user-model.test.ts');
const FIXTURES = path.join(root, 'scripts/consumer-smoke');

const started = Date.now();
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'pgw-consumer-'));
const app = path.join(tmp, 'app');
// pnpm exports npm_* settings to scripts it runs; the consumer's npm must see none of them.
const cleanEnv = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.toLowerCase().startsWith('npm_')));

function step(name, action) {
  const at = Date.now();
  const result = action();
  console.log(`consumer-smoke: ok  ${name} (${((Date.now() - at) / 1000).toFixed(1)} s)`);
  return result;
}

function fail(message) {
  throw new Error(`consumer-smoke: ${message}`);
}

function run(command, args, { env = {}, expectFailure = false } = {}) {
  const result = spawnSync(command, args, { cwd: app, env: { ...cleanEnv, ...env }, encoding: 'utf8' });
  const failed = result.status !== 0;
  if (failed !== expectFailure) {
    fail(`${command} ${args.join(' ')} exited ${result.status}${expectFailure ? ' (a failure was expected)' : ''}\n${result.stdout}${result.stderr}`);
  }
  return result;
}

// npm builds better-sqlite3 against this Node's headers, as scripts/setup.sh does (set even when empty,
// so an npmrc's nodedir cannot point the build at another Node).
const NATIVE_BUILD_ENV = { npm_config_nodedir: nodeHeadersDir() ?? '' };

function npm(args) {
  return run('npm', [...args, '--no-audit', '--no-fund', '--loglevel=error'], { env: NATIVE_BUILD_ENV });
}

/** The last stdout line of chat.mjs, parsed. */
function chatResult(env) {
  const lines = run('node', ['chat.mjs'], { env }).stdout.trim().split('\n');
  return JSON.parse(lines.at(-1));
}

/** Every package directory installed under node_modules, at any depth, by package name. */
function installedNames() {
  const names = new Set();
  const walk = (dir) => {
    if (!fs.existsSync(dir)) return;
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      if (!entry.isDirectory() || entry.name === '.bin') continue;
      if (entry.name.startsWith('@')) {
        for (const scoped of fs.readdirSync(path.join(dir, entry.name))) visit(path.join(dir, entry.name, scoped), `${entry.name}/${scoped}`);
      } else visit(path.join(dir, entry.name), entry.name);
    }
  };
  const visit = (dir, name) => {
    names.add(name);
    walk(path.join(dir, 'node_modules'));
  };
  walk(path.join(app, 'node_modules'));
  return names;
}

try {
  const packages = publicPackages();
  const tarballs = step(`pnpm release:pack (${packages.length} public packages)`, () => {
    const packed = spawnSync('node', [path.join(root, 'scripts/release-pack.mjs'), path.join(tmp, 'tarballs')], { cwd: root, encoding: 'utf8' });
    if (packed.status !== 0) fail(`release:pack exited ${packed.status}\n${packed.stderr}`);
    const out = packed.stdout;
    const paths = out.trim().split('\n');
    if (paths.length !== packages.length) fail(`expected ${packages.length} tarballs, got:\n${out}`);
    return Object.fromEntries(
      packages.map(({ name, manifest }) => {
        const file = paths.find((p) => path.basename(p) === `${name.replace('@', '').replace('/', '-')}-${manifest.version}.tgz`);
        if (!file) fail(`no tarball for ${name}`);
        // Relative to the project, as npm records it: a direct dependency must equal its override.
        return [name, `file:${path.relative(app, file)}`];
      }),
    );
  });

  step('npm install @pgw/client (tarballs) into a project outside the workspace', () => {
    fs.mkdirSync(app);
    for (const file of fs.readdirSync(FIXTURES)) fs.copyFileSync(path.join(FIXTURES, file), path.join(app, file));
    // overrides: every @pgw/* dependency resolves to its tarball, never to a registry package of that name.
    const manifest = {
      name: 'pgw-consumer-smoke',
      private: true,
      type: 'module',
      dependencies: { '@pgw/client': tarballs['@pgw/client'] },
      devDependencies: { typescript: TYPESCRIPT, '@types/node': TYPES_NODE },
      overrides: tarballs,
    };
    fs.writeFileSync(path.join(app, 'package.json'), JSON.stringify(manifest, null, 2));
    npm(['install']);
    for (const { name, dir, manifest: source } of packages) {
      const installed = path.join(app, 'node_modules', name, 'package.json');
      if (!fs.existsSync(installed)) continue;
      const got = JSON.parse(fs.readFileSync(installed, 'utf8'));
      if (got.repository?.directory !== dir || got.version !== source.version) fail(`${name} was not installed from its tarball`);
      if (JSON.stringify(got.exports).includes('@pgw/source')) fail(`${name}'s installed exports still name the @pgw/source condition`);
    }
  });

  step(`@pgw/client alone brings none of ${FORBIDDEN_WITH_CLIENT_ALONE.join(', ')}`, () => {
    const names = installedNames();
    const found = FORBIDDEN_WITH_CLIENT_ALONE.filter((name) => names.has(name));
    if (found.length > 0) fail(`installing @pgw/client alone brought ${found.join(', ')}`);
  });

  step('(a) plain-node ESM: GatewayClient chat against a loopback upstream (memory backends)', () => {
    const result = chatResult({ SMOKE_SCOPE: 'LLM' });
    if (result.attempts !== 1) fail(`expected one attempt, got ${JSON.stringify(result)}`);
  });

  step('(b) TypeScript consumer typechecks with module/moduleResolution nodenext', () => {
    run('node', [path.join('node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.json']);
  });

  const bullmqEnv = { PGW_BATCH__ENGINE: 'bullmq', REDIS_URL: 'redis://127.0.0.1:6379', PGW_BATCH__DSN: 'postgres://smoke@127.0.0.1:5432/smoke' };

  step(`(f) npm install @pgw/server (tarball): it brings none of ${FORBIDDEN_WITH_SERVER.join(', ')}`, () => {
    npm(['install', tarballs['@pgw/server']]);
    const names = installedNames();
    const found = FORBIDDEN_WITH_SERVER.filter((name) => names.has(name));
    if (found.length > 0) fail(`installing @pgw/server brought ${found.join(', ')}`);
    const store = JSON.parse(run('node', ['batch-store.mjs']).stdout.trim()).store;
    if (store !== 'SqliteBatchEngine') fail(`the default batch store is ${store}`);
  });

  step('(f) PGW_BATCH__ENGINE=bullmq without @pgw/batch-bullmq fails naming the package', () => {
    const { stderr } = run('node', ['batch-store.mjs'], { env: bullmqEnv, expectFailure: true });
    if (!stderr.includes('npm install @pgw/batch-bullmq')) fail(`the error does not name @pgw/batch-bullmq:\n${stderr}`);
  });

  const scope = `SMOKE_${randomBytes(4).toString('hex').toUpperCase()}`;
  const redisEnv = { SMOKE_SCOPE: scope, PGW_LIMITER_BACKEND: 'redis', REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379' };

  step('(c) PGW_LIMITER_BACKEND=redis without @pgw/backend-redis fails naming the package', () => {
    const { stderr } = run('node', ['chat.mjs'], { env: redisEnv, expectFailure: true });
    if (!stderr.includes('@pgw/backend-redis')) fail(`the error does not name @pgw/backend-redis:\n${stderr}`);
  });

  step('(c) npm install @pgw/backend-redis (tarball): PGW_LIMITER_BACKEND=redis alone switches the backend', () => {
    npm(['install', tarballs['@pgw/backend-redis']]);
    const result = chatResult(redisEnv);
    if (!(result.redisKeys > 0)) fail(`no keys of scope ${scope} in Redis after the call: ${JSON.stringify(result)}`);
  });

  step('(d) npm install @pgw/telemetry-sqlite (tarball): PGW_TELEMETRY_BACKEND=sqlite writes the call through the writer thread', () => {
    npm(['install', tarballs['@pgw/telemetry-sqlite']]);
    const result = chatResult({ SMOKE_SCOPE: 'LLM', PGW_TELEMETRY_BACKEND: 'sqlite', PGW_SQLITE_PATH: path.join(tmp, 'telemetry.sqlite') });
    if (result.telemetryCalls !== 1) fail(`expected one call in the SQLite file, got ${JSON.stringify(result)}`);
  });

  step('(e) npm install @pgw/testkit (tarball) and vitest: the model contract suites pass against a user-written model', () => {
    const source = fs.readFileSync(USER_MODEL_TEST, 'utf8');
    const workspaceImport = "from '../src/index.js';";
    if (!source.includes(workspaceImport)) fail(`${path.relative(root, USER_MODEL_TEST)} no longer imports the suites from ${workspaceImport}`);
    fs.writeFileSync(path.join(app, 'user-model.test.ts'), source.replace(workspaceImport, "from '@pgw/testkit';"));
    npm(['install', '--save-dev', tarballs['@pgw/testkit'], tarballs['@pgw/core'], `vitest@${VITEST}`]);
    const { stdout } = run('node', [path.join('node_modules', 'vitest', 'vitest.mjs'), 'run', 'user-model.test.ts'], { env: { NO_COLOR: '1' } });
    const passed = Number(stdout.match(/Tests\s+(\d+) passed/)?.[1] ?? 0);
    if (passed === 0) fail(`no contract case passed:\n${stdout}`);
    console.log(`consumer-smoke:     ${passed} contract cases passed`);
  });

  step('(f) npm install @pgw/batch-bullmq (tarball): PGW_BATCH__ENGINE=bullmq opens the BullMQ engine', () => {
    npm(['install', tarballs['@pgw/batch-bullmq']]);
    if (!installedNames().has('bullmq')) fail('@pgw/batch-bullmq did not bring bullmq');
    const store = JSON.parse(run('node', ['batch-store.mjs'], { env: bullmqEnv }).stdout.trim()).store;
    if (store !== 'BullmqBatchEngine') fail(`PGW_BATCH__ENGINE=bullmq opened ${store}`);
  });

  console.log(`consumer-smoke: passed in ${((Date.now() - started) / 1000).toFixed(1)} s`);
} finally {
  if (process.env.PGW_SMOKE_KEEP === '1') console.log(`consumer-smoke: kept ${tmp}`);
  else fs.rmSync(tmp, { recursive: true, force: true });
}
