// Input bounds for mesh files (scenarios are bounded by the simulator's loader): size, documents, list lengths, the safe read.

import { readFileSync, statSync } from 'node:fs';
import { MeshError } from './errors.js';

/** Largest file read (bytes): real mesh configs of a few hundred services are well below this. */
export const MAX_FILE_BYTES = 4 * 1024 * 1024;
/** Most YAML documents in one file. */
export const MAX_DOCUMENTS = 2000;
/** Most items in any one list we walk (routes, clusters, virtual hosts, http rules, retriable codes). */
export const MAX_LIST = 5000;
/** Most services and edges a model may hold. */
export const MAX_SERVICES = 1000;
export const MAX_EDGES = 10_000;

/** Reads a text file, refusing what is not a file or is larger than MAX_FILE_BYTES, with a one-line reason. */
export function readBoundedFile(path: string): string {
  let size: number;
  try {
    const stat = statSync(path);
    if (!stat.isFile()) throw new MeshError([`${path}: not a file`]);
    size = stat.size;
  } catch (error) {
    if (error instanceof MeshError) throw error;
    throw new MeshError([`${path}: cannot read: ${(error as Error).message}`]);
  }
  if (size > MAX_FILE_BYTES) {
    throw new MeshError([`${path}: ${size} bytes is larger than the ${MAX_FILE_BYTES}-byte limit`]);
  }
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    throw new MeshError([`${path}: cannot read: ${(error as Error).message}`]);
  }
}

/** Checks a list's length against MAX_LIST; the problem names its path. */
export function checkListLength(list: readonly unknown[], path: string, problems: string[]): boolean {
  if (list.length <= MAX_LIST) return true;
  problems.push(`${path}: ${list.length} items is more than the ${MAX_LIST} allowed`);
  return false;
}
