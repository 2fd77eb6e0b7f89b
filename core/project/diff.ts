/**
 * Line diffs between two file maps (the engine's metadata as files, the project's), for
 * `metadata diff`: per changed file, its lines prefixed `-` (only on the engine), `+` (only in
 * the project) or ` ` (context, at most CONTEXT lines around a change).
 */
import type { FileMap } from './metadata-files.js';

const CONTEXT = 3;

export interface FileDiff {
  path: string;
  change: 'added' | 'removed' | 'modified';
  lines: string[];
}

export function diffFileMaps(from: FileMap, to: FileMap): FileDiff[] {
  const paths = [...new Set([...from.keys(), ...to.keys()])].sort();
  const out: FileDiff[] = [];
  for (const path of paths) {
    const a = from.get(path);
    const b = to.get(path);
    if (a === b) continue;
    const change = a === undefined ? 'added' : b === undefined ? 'removed' : 'modified';
    out.push({ path, change, lines: diffLines(splitLines(a ?? ''), splitLines(b ?? '')) });
  }
  return out;
}

const splitLines = (text: string): string[] => (text === '' ? [] : text.replace(/\n$/, '').split('\n'));

/** Longest-common-subsequence diff; metadata files are small enough for the quadratic table. */
export function diffLines(a: readonly string[], b: readonly string[]): string[] {
  const n = a.length;
  const m = b.length;
  const lcs: Uint32Array[] = Array.from({ length: n + 1 }, () => new Uint32Array(m + 1));
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) lcs[i]![j] = a[i] === b[j] ? lcs[i + 1]![j + 1]! + 1 : Math.max(lcs[i + 1]![j]!, lcs[i]![j + 1]!);
  }
  const all: string[] = [];
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && a[i] === b[j]) {
      all.push(` ${a[i]}`);
      i++;
      j++;
    } else if (j < m && (i >= n || lcs[i]![j + 1]! >= lcs[i + 1]![j]!)) {
      all.push(`+${b[j]}`);
      j++;
    } else {
      all.push(`-${a[i]}`);
      i++;
    }
  }
  // Keep changes and CONTEXT lines around them; a gap becomes `...`.
  const keep = all.map(() => false);
  all.forEach((line, k) => {
    if (line[0] === ' ') return;
    for (let c = Math.max(0, k - CONTEXT); c <= Math.min(all.length - 1, k + CONTEXT); c++) keep[c] = true;
  });
  const out: string[] = [];
  let skipped = false;
  all.forEach((line, k) => {
    if (keep[k]) {
      out.push(line);
      skipped = false;
    } else if (!skipped) {
      out.push('...');
      skipped = true;
    }
  });
  return out;
}
