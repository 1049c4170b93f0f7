// The one bounded file reader (scenarios and their extends:, mesh import, lint): a regular file, at most a stated size.

import { closeSync, constants, fstatSync, openSync, readdirSync, readSync, type Stats, statSync } from 'node:fs';

/** Largest scenario file read (bytes), `extends:` parents included; the mesh files have the same bound. */
export const MAX_SCENARIO_BYTES = 4 * 1024 * 1024;

/** A file refused or unreadable: `reason` says why (no path), `message` is `<path>: <reason>`. */
export class FileReadError extends Error {
  readonly reason: string;
  constructor(
    readonly path: string,
    reason: string,
  ) {
    super(`${path}: ${reason}`);
    this.name = 'FileReadError';
    this.reason = reason;
  }
}

function kindOf(stat: Stats): string {
  if (stat.isFIFO()) return 'a FIFO';
  if (stat.isCharacterDevice()) return 'a character device';
  if (stat.isBlockDevice()) return 'a block device';
  if (stat.isDirectory()) return 'a directory';
  if (stat.isSocket()) return 'a socket';
  return 'not a plain file';
}

/** 52 MB, 4 MB, 4.5 MB, 900 bytes: whole or one-decimal MiB from 1 MiB up. */
export function formatSize(bytes: number): string {
  if (bytes < 1024 * 1024) return `${bytes} bytes`;
  const mb = bytes / (1024 * 1024);
  return `${mb >= 10 ? Math.round(mb) : Number(mb.toFixed(1))} MB`;
}

function tooBig(path: string, size: number, maxBytes: number, what: string): FileReadError {
  let shown = formatSize(size);
  const limit = formatSize(maxBytes);
  // 4 MB and one byte is not "4 MB is more than the 4 MB": say it in bytes.
  if (shown === limit) shown = `${size} bytes`;
  return new FileReadError(path, `${shown} is more than the ${limit} ${what} may be`);
}

function refuseStat(path: string, stat: Stats, maxBytes: number, what: string): void {
  // @ko read-bounded-regular-file
  if (!stat.isFile()) throw new FileReadError(path, `not a regular file (${kindOf(stat)})`);
  if (stat.size > maxBytes) throw tooBig(path, stat.size, maxBytes, what);
}

const cannot = (path: string, error: unknown): FileReadError =>
  new FileReadError(path, `cannot read: ${(error as Error).message}`);

/**
 * Reads `path` as UTF-8 text, refusing (FileReadError) anything but a regular file and more than `maxBytes` bytes.
 * The type is checked before the open (opening a FIFO blocks until someone writes to it), again on the opened file
 * (O_NONBLOCK: a FIFO swapped in meanwhile cannot block), and the read stops at maxBytes + 1 (a file that grows).
 * `what` names the kind of file in the size refusal ("a scenario").
 */
export function readBoundedText(path: string, maxBytes: number, what: string): string {
  let stat: Stats;
  try {
    stat = statSync(path);
  } catch (error) {
    throw cannot(path, error);
  }
  refuseStat(path, stat, maxBytes, what);
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  } catch (error) {
    throw cannot(path, error);
  }
  try {
    refuseStat(path, fstatSync(fd), maxBytes, what);
    const buffer = Buffer.allocUnsafe(Math.min(maxBytes, stat.size) + 1);
    let length = 0;
    for (;;) {
      let n: number;
      try {
        n = readSync(fd, buffer, length, buffer.length - length, null);
      } catch (error) {
        throw cannot(path, error);
      }
      if (n === 0) break;
      length += n;
      if (length > maxBytes) throw tooBig(path, length, maxBytes, what);
      if (length === buffer.length) break;
    }
    return buffer.toString('utf8', 0, length);
  } finally {
    closeSync(fd);
  }
}

/** The YAML files in `path` when it is a directory (sorted; unreadable: none), else null. */
export function directoryListing(path: string): string[] | null {
  try {
    if (!statSync(path).isDirectory()) return null;
  } catch {
    return null;
  }
  try {
    return readdirSync(path)
      .filter((f) => /\.ya?ml$/i.test(f))
      .sort();
  } catch {
    return [];
  }
}
