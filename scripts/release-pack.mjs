#!/usr/bin/env node
// `pnpm release:pack [outDir]`: builds every public workspace package from a clean dist and packs
// it with pnpm (which applies publishConfig and turns workspace: ranges into versions) into outDir
// (default .release/). Prints one tarball path per line on stdout; the consumer smoke test installs them.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { publicPackages, root } from './lib/workspace.mjs';

const outDir = path.resolve(root, process.argv[2] ?? '.release');
const packages = publicPackages();

for (const { dir } of packages) fs.rmSync(path.join(root, dir, 'dist'), { recursive: true, force: true });
fs.rmSync(outDir, { recursive: true, force: true });
fs.mkdirSync(outDir, { recursive: true });

const filters = packages.map(({ name }) => `--filter=${name}`);
execFileSync('pnpm', ['exec', 'turbo', 'run', 'build', '--output-logs=errors-only', ...filters], {
  cwd: root,
  stdio: ['ignore', 2, 2], // stdout carries only the tarball paths
  env: { ...process.env, TURBO_TELEMETRY_DISABLED: '1' },
});

for (const { dir } of packages) {
  execFileSync('pnpm', ['pack', '--pack-destination', outDir], { cwd: path.join(root, dir), stdio: ['ignore', 'ignore', 'inherit'] });
}
for (const file of fs.readdirSync(outDir).filter((name) => name.endsWith('.tgz')).sort()) console.log(path.join(outDir, file));
