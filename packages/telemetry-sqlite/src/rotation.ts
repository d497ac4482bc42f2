/**
 * Rotation by file: a full file is renamed to `<stem>.<UTC stamp><ext>` and a fresh one takes its
 * place, so old rows leave by deleting whole files — never DELETE + VACUUM on a big file.
 */
import { existsSync, readdirSync, renameSync, unlinkSync } from 'node:fs';
import { basename, dirname, extname, join } from 'node:path';

function parts(path: string) {
  const ext = extname(path);
  return { dir: dirname(path), stem: basename(path, ext), ext: ext === '' ? '.sqlite' : ext };
}

function stamp(ms: number): string {
  return new Date(ms).toISOString().replace(/[-:.]/g, '');
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Renames `path` aside and returns the new name; a stamp already taken moves on by a millisecond, so names sort by age. */
export function renameAside(path: string, now: number): string {
  const { dir, stem, ext } = parts(path);
  let at = now;
  let target = join(dir, `${stem}.${stamp(at)}${ext}`);
  while (existsSync(target)) {
    at += 1;
    target = join(dir, `${stem}.${stamp(at)}${ext}`);
  }
  renameSync(path, target);
  return target;
}

/** Rotated files of `path`, oldest first. */
export function rotatedFiles(path: string): string[] {
  const { dir, stem, ext } = parts(path);
  const pattern = new RegExp(`^${escapeRegExp(stem)}\\.\\d{8}T\\d{9}Z${escapeRegExp(ext)}$`);
  return readdirSync(dir)
    .filter((name) => pattern.test(name))
    .sort()
    .map((name) => join(dir, name));
}

/** Removes all but the newest `keep` rotated files; returns the removed paths. */
export function pruneRotated(path: string, keep: number): string[] {
  const files = rotatedFiles(path);
  const removed = files.slice(0, Math.max(0, files.length - keep));
  for (const file of removed) unlinkSync(file);
  return removed;
}
