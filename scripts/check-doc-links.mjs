#!/usr/bin/env node
// Every reference in the project's docs must be followable:
//   - `docs/<file>.md#anchor` (in code comments and markdown) names a heading that exists (GitHub's slugs);
//   - `docs/<file>.md` anywhere (a source comment pointing at a doc, too) names a doc that exists;
//   - in markdown, a link target and a file path in backticks (`packages/core/src/ports.ts`,
//     `core/src/settings.ts`, `src/fake-clock.ts`) name a file or directory that exists;
//   - every type the ports table of docs/architecture.md names in its first column is exported by
//     `@pgw/core` (its packages/core/exports.txt).
// A backticked span counts as a path only when it is one word with a `/`, ending in a file extension,
// with no glob, placeholder or call syntax: package names, env keys, globs and identifiers are never
// taken for one, nor a bare file name (`result.md` inside an archive, a generated `CHANGELOG.md`). Runs in `pnpm lint`, with a self-check that each kind of dangling reference is caught.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { root, workspacePackages } from './lib/workspace.mjs';

const REFERENCE = /docs\/([\w-]+\.md)#([\w-]+)/g;
const DOC_FILE = /(?<![\w./-])docs\/([\w-]+\.md)(?![\w-])/g;
const FENCE = /^(```|~~~)[^\n]*\n[\s\S]*?^\1[ \t]*$/gm;
const BACKTICKED = /`([^`\n]+)`/g;
const LINK = /\[[^\]\n]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g;
const FILE_PATH = /^(?:\.{1,2}\/)*[\w@.-]+(?:\/[\w@.-]+)*\.(?:ts|mts|cts|js|mjs|cjs|json|md|lua|sh|ya?ml|sql|txt)$/;
/** Build output and installed code are not tracked: a path into them is not checked. */
const GENERATED = /(^|\/)(dist|node_modules|\.turbo|\.release)\//;

function slug(heading) {
  return heading.trim().toLowerCase().replace(/[^\p{L}\p{N}\s-]/gu, '').replace(/\s/g, '-');
}

const anchorsOf = new Map();
function anchors(doc) {
  if (!anchorsOf.has(doc)) {
    const file = path.join(root, 'docs', doc);
    const text = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';
    anchorsOf.set(doc, new Set([...text.matchAll(/^#{1,6}\s+(.+)$/gm)].map((match) => slug(match[1]))));
  }
  return anchorsOf.get(doc);
}

const tracked = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard'], { cwd: root, encoding: 'utf8' })
  .split('\n')
  .filter((file) => file !== '' && fs.existsSync(path.join(root, file)));
const trackedSet = new Set(tracked);
const trackedDirs = new Set(tracked.flatMap((file) => file.split('/').slice(0, -1).map((_, i, parts) => parts.slice(0, i + 1).join('/'))));
const packageDirs = workspacePackages().map(({ dir }) => dir);

/** A compiled name also stands for its TypeScript source (`./x.js` is how ESM imports `x.ts`). */
function spellings(file) {
  if (file.endsWith('.js')) return [file, file.replace(/\.js$/, '.ts')];
  if (file.endsWith('.mjs')) return [file, file.replace(/\.mjs$/, '.mts')];
  return [file];
}

function exists(relative) {
  return spellings(relative).some((file) => trackedSet.has(file) || trackedDirs.has(file));
}

/**
 * Whether a path named in `fromFile` exists: relative to that file's directory, to the repository,
 * to `packages/` or `apps/` (`core/src/settings.ts`), or to a workspace package (`src/sqlite-worker.ts`).
 */
function resolves(target, fromFile) {
  const clean = target.replace(/#.*$/, '').replace(/\/$/, '');
  if (clean === '' || GENERATED.test(clean)) return true;
  const bases = [path.posix.dirname(fromFile), '.', 'packages', 'apps', ...packageDirs];
  return bases.some((base) => exists(path.posix.normalize(path.posix.join(base, clean))));
}

/** Every dangling reference in `text`, the contents of `file`. */
function dangling(text, file) {
  const found = [];
  for (const [reference, doc, anchor] of text.matchAll(REFERENCE)) {
    if (!anchors(doc).has(anchor)) found.push(`${reference} names no heading`);
  }
  for (const [reference, doc] of text.matchAll(DOC_FILE)) {
    if (!fs.existsSync(path.join(root, 'docs', doc))) found.push(`${reference} names no doc`);
  }
  if (file.endsWith('.md')) {
    const prose = text.replace(FENCE, '');
    for (const [, target] of prose.matchAll(LINK)) {
      if (/^[a-z][\w+.-]*:|^#/i.test(target)) continue;
      if (!resolves(decodeURI(target), file)) found.push(`link (${target}) names no file`);
    }
    for (const [, span] of prose.matchAll(BACKTICKED)) {
      if (span.includes('/') && FILE_PATH.test(span) && !resolves(span, file)) found.push(`\`${span}\` names no file`);
    }
  }
  return found;
}

/** The ports table's first-column names that `@pgw/core` does not export. */
function unexportedPorts(architecture, coreExports) {
  const exported = new Set(
    coreExports
      .slice(coreExports.indexOf('[@pgw/core]'), coreExports.indexOf('[@pgw/core/internal]'))
      .split('\n')
      .map((line) => line.split(' ')[1]),
  );
  const section = architecture.split(/^## Ports and adapters$/m)[1]?.split(/^## /m)[0] ?? '';
  const rows = section.split('\n').filter((line) => line.startsWith('| `'));
  if (rows.length === 0) return ['docs/architecture.md has no ports table under "## Ports and adapters"'];
  const names = rows.flatMap((row) => [...row.split('|')[1].matchAll(/`([A-Z]\w*)`/g)].map((match) => match[1]));
  return names.filter((name) => !exported.has(name)).map((name) => `the ports table names \`${name}\`, which @pgw/core does not export`);
}

const checked = tracked.filter((file) => /\.(ts|mts|mjs|cjs|js|md|json|ya?ml|sh)$/.test(file) || file === '.env.example' || file === '.ci/run');
let failed = false;
for (const file of checked) {
  for (const problem of dangling(fs.readFileSync(path.join(root, file), 'utf8'), file)) {
    console.error(`check-doc-links: ${file}: ${problem}`);
    failed = true;
  }
}

const coreExports = fs.readFileSync(path.join(root, 'packages/core/exports.txt'), 'utf8');
for (const problem of unexportedPorts(fs.readFileSync(path.join(root, 'docs/architecture.md'), 'utf8'), coreExports)) {
  console.error(`check-doc-links: docs/architecture.md: ${problem}`);
  failed = true;
}
const plantedTable = '## Ports and adapters\n\n| port | by |\n| --- | --- |\n| `Governor` (+ `Lease`) | x |\n| `NoSuchPort` | y |\n\n## Next\n| `Other` | z |\n';
if (unexportedPorts(plantedTable, coreExports).length !== 1) {
  console.error('check-doc-links: self-check: a ports table naming a type core does not export was not caught');
  failed = true;
}

// Self-check: each kind of dangling reference is caught, and none of the look-alikes is.
const plants = [
  // (spelled in two pieces, so this file itself holds no dangling reference)
  [`see docs/architecture.md#${'no-such-heading'}`, 'packages/core/src/x.ts', 1],
  [`/** Thinking profiles (docs/${'no-such-doc'}.md). */`, 'packages/core/src/settings.ts', 1],
  ['the port is in `packages/core/src/no-such-file.ts`', 'docs/architecture.md', 1],
  ['the port is in `core/src/no-such-file.ts`', 'docs/architecture.md', 1],
  ['see `src/no-such-file.ts`', 'docs/architecture.md', 1],
  ['see [the guide](./no-such-guide.md#top)', 'packages/core/README.md', 1],
  ['`packages/core/src/ports.ts`, `core/src/settings.ts`, `src/fake-clock.ts`, `test/support.ts`, `ports.ts`, `result.md`', 'packages/testkit/README.md', 0],
  ['[errors](../../docs/architecture.md#errors), [site](https://example.com/a.md), [top](#public-surface)', 'packages/core/README.md', 0],
  ['`@pgw/http`, `PGW_OTEL`, `packages/*/src/**/*.ts`, `JSON.stringify`, `import.meta.url`, `dist/index.js`, in a fence\n```\n`nope.ts`\n```', 'docs/architecture.md', 0],
];
for (const [text, file, expected] of plants) {
  const found = dangling(text, file);
  if (found.length !== expected) {
    console.error(`check-doc-links: self-check: ${JSON.stringify(text)} in ${file} gave ${found.length} problems, expected ${expected}: ${found.join('; ')}`);
    failed = true;
  }
}
if (failed) process.exit(1);
console.log(`check-doc-links: the references of ${checked.length} files resolve, the ports table names core's exports; ${plants.length + 1} self-check cases hold`);
