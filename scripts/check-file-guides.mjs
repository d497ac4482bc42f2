#!/usr/bin/env node
// Every package's file guide matches its tree. The guide is the leading comment block of the package's
// src/index.ts ("Where the behaviours live: …"); a reader finds a behaviour's file from it, so it must
// neither name a file that is gone nor leave one out:
//   - every path it names (`foo.ts`, `dir/foo.ts`, `*-request.ts`, `dir/`) exists under src/ (a glob
//     matches at least one file);
//   - every .ts file under src/ is covered: named itself, matched by a named glob, or inside a named
//     folder (`dir/`). The entry files the exports map points at (index.ts, internal.ts, …) are
//     exempt: they are the export lists, not behaviours.
// Only .ts paths and folders are read from the guide: `README.md`, `scripts/check-exports.mjs`,
// `@pgw/core/internal` and `/ui` are left alone. Runs in `pnpm lint` over every package under
// packages/ (docs/decisions.md, "File guides checked against the tree"), with a self-check that a
// missing and an extra file are both caught.
import fs from 'node:fs';
import path from 'node:path';
import { root, workspacePackages } from './lib/workspace.mjs';

const FILE = /(?<![\w./@*-])((?:\.\/)?[\w.*-]+(?:\/[\w.*-]+)*\.ts)(?![\w-])/g;
const FOLDER = /(?<![\w./@:*-])((?:[\w-][\w.-]*\/)+)(?![\w/*-])/g;

/** The leading run of `//` lines (or the first block comment) of an entry file. */
function leadingComment(text) {
  const block = text.match(/^\s*\/\*([\s\S]*?)\*\//);
  if (block) return block[1];
  const lines = [];
  for (const line of text.split('\n')) {
    if (!line.startsWith('//')) break;
    lines.push(line.replace(/^\/\/\s?/, ''));
  }
  return lines.join('\n');
}

function globToRegExp(glob) {
  return new RegExp(`^${glob.split('*').map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('[^/]*')}$`);
}

/**
 * The problems of `guide` against `files` (the .ts files under src/, relative to it, with `/`) and
 * `exempt` (the entry files).
 */
function guideProblems(guide, files, exempt) {
  const problems = [];
  if (!/Where the behaviours live/.test(guide)) return ['src/index.ts opens with no file guide ("Where the behaviours live: …")'];
  const folders = new Set(files.flatMap((file) => file.split('/').slice(0, -1).map((_, i, parts) => `${parts.slice(0, i + 1).join('/')}/`)));
  const namedFiles = [...new Set([...guide.matchAll(FILE)].map((match) => path.posix.normalize(match[1])))];
  const namedFolders = [...new Set([...guide.matchAll(FOLDER)].map((match) => match[1]))];
  const covered = new Set();
  for (const name of namedFiles) {
    const pattern = globToRegExp(name);
    const matched = files.filter((file) => pattern.test(file));
    if (matched.length === 0) problems.push(`the guide names \`${name}\`, which is not under src/`);
    for (const file of matched) covered.add(file);
  }
  for (const folder of namedFolders) {
    if (!folders.has(folder)) problems.push(`the guide names \`${folder}\`, which is not a folder under src/`);
    for (const file of files) if (file.startsWith(folder)) covered.add(file);
  }
  for (const file of files) {
    if (!covered.has(file) && !exempt.includes(file)) problems.push(`src/${file} is not in the guide (name it, or a folder holding it)`);
  }
  return problems;
}

function tsFiles(dir, prefix = '') {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    if (entry.isDirectory()) return tsFiles(path.join(dir, entry.name), `${prefix}${entry.name}/`);
    return entry.name.endsWith('.ts') ? [`${prefix}${entry.name}`] : [];
  });
}

/** The src/ files the exports map points at, relative to src/. */
function entryFiles(manifest) {
  const found = [];
  const walk = (value) => {
    if (typeof value === 'string') {
      if (value.startsWith('./src/')) found.push(value.slice('./src/'.length));
    } else if (value !== null && typeof value === 'object') {
      Object.values(value).forEach(walk);
    }
  };
  walk(manifest.exports);
  return found;
}

let failed = false;
const packages = workspacePackages().filter(({ dir }) => dir.startsWith('packages/'));
for (const { dir, manifest } of packages) {
  const src = path.join(root, dir, 'src');
  const entry = path.join(src, 'index.ts');
  if (!fs.existsSync(entry)) {
    console.error(`check-file-guides: ${dir} has no src/index.ts to hold its file guide`);
    failed = true;
    continue;
  }
  for (const problem of guideProblems(leadingComment(fs.readFileSync(entry, 'utf8')), tsFiles(src), entryFiles(manifest))) {
    console.error(`check-file-guides: ${dir}: ${problem}`);
    failed = true;
  }
}

// Self-check: a missing and an extra file are caught, and what the guide may also say is not taken for a path.
const tree = ['index.ts', 'internal.ts', 'a.ts', 'chat-request.ts', 'embed-request.ts', 'lua/b.ts', 'lua/c.ts'];
const plants = [
  ['Where the behaviours live: a.ts; *-request.ts parse; lua/ holds the scripts (./internal.ts).', tree, 0],
  ['Where the behaviours live: a.ts, gone.ts; *-request.ts parse; lua/ holds the scripts.', tree, 1],
  ['Where the behaviours live: a.ts; *-request.ts parse; lua/b.ts only.', tree, 1],
  ['Where the behaviours live: a.ts; *-reply.ts answer; *-request.ts parse; lua/.', tree, 1],
  ['Where the behaviours live: a.ts; *-request.ts parse; lua/ and gone/.', tree, 1],
  ['Where the behaviours live: a.ts, *-request.ts, lua/; see README.md, scripts/check-exports.mjs, @pgw/core/internal, /ui, and/or https://example.com/x/.', tree, 0],
  ['The public surface, curated by hand.', tree, 1],
];
for (const [guide, files, expected] of plants) {
  const found = guideProblems(guide, files, ['index.ts', 'internal.ts']);
  if (found.length !== expected) {
    console.error(`check-file-guides: self-check: ${JSON.stringify(guide)} gave ${found.length} problems, expected ${expected}: ${found.join('; ')}`);
    failed = true;
  }
}
if (failed) process.exit(1);
console.log(`check-file-guides: the file guides of ${packages.length} packages match their trees; ${plants.length} self-check cases hold`);
