// Input bounds for mesh files: size (the scenario loader's bounded reader, shared), documents, list lengths.

import { FileReadError, MAX_SCENARIO_BYTES, readBoundedText } from '../sim/scenario/read-file.js';
import { MeshError } from './errors.js';

/** Largest file read (bytes): real mesh configs of a few hundred services are well below this; a scenario's bound. */
export const MAX_FILE_BYTES = MAX_SCENARIO_BYTES;
/** Most YAML documents in one file. */
export const MAX_DOCUMENTS = 2000;
/** Most items in any one list we walk (routes, clusters, virtual hosts, http rules, retriable codes). */
export const MAX_LIST = 5000;
/** Most services and edges a model may hold. */
export const MAX_SERVICES = 1000;
export const MAX_EDGES = 10_000;

/** Reads a text file by the shared bounded reader (src/sim/scenario/read-file.ts): a regular file of MAX_FILE_BYTES. */
export function readBoundedFile(path: string): string {
  try {
    return readBoundedText(path, MAX_FILE_BYTES, 'a mesh file');
  } catch (error) {
    if (error instanceof FileReadError) throw new MeshError([error.message]);
    throw error;
  }
}

/** Checks a list's length against MAX_LIST; the problem names its path. */
export function checkListLength(list: readonly unknown[], path: string, problems: string[]): boolean {
  if (list.length <= MAX_LIST) return true;
  problems.push(`${path}: ${list.length} items is more than the ${MAX_LIST} allowed`);
  return false;
}
