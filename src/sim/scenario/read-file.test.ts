// The bounded reader in-process: a FIFO, a device and a directory are refused by their type, a big file by its size.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FileReadError, formatSize, readBoundedText } from './read-file.js';

const dir = mkdtempSync(join(tmpdir(), 'seawall-read-file-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function refusal(path: string, maxBytes = 1024): FileReadError {
  try {
    readBoundedText(path, maxBytes, 'a scenario');
  } catch (error) {
    expect(error).toBeInstanceOf(FileReadError);
    return error as FileReadError;
  }
  throw new Error(`${path} was read`);
}

describe('readBoundedText', () => {
  it('refuses a FIFO by its type (opened non-blocking, so even a knocked-out check cannot hang)', () => {
    const path = join(dir, 'pipe.yaml');
    execFileSync('mkfifo', [path]);
    expect(refusal(path).reason).toBe('not a regular file (a FIFO)');
  });

  it('refuses /dev/zero as a character device, not as a file that is too big', () => {
    expect(refusal('/dev/zero').message).toBe('/dev/zero: not a regular file (a character device)');
  });

  it('refuses a directory by its type', () => {
    expect(refusal(dir).reason).toBe('not a regular file (a directory)');
  });

  it('refuses a file over the bound by its size, and reads one at the bound', () => {
    const path = join(dir, 'big.yaml');
    writeFileSync(path, 'x'.repeat(1025));
    expect(refusal(path).reason).toBe('1025 bytes is more than the 1024 bytes a scenario may be');
    writeFileSync(path, 'y'.repeat(1024));
    expect(readBoundedText(path, 1024, 'a scenario')).toBe('y'.repeat(1024));
  });

  it('says why a missing file cannot be read', () => {
    expect(refusal(join(dir, 'nope.yaml')).reason).toMatch(/^cannot read: ENOENT/);
  });

  it('formats sizes as bytes below 1 MiB and MB above', () => {
    expect(formatSize(900)).toBe('900 bytes');
    expect(formatSize(4 * 1024 * 1024)).toBe('4 MB');
    expect(formatSize(4.5 * 1024 * 1024)).toBe('4.5 MB');
    expect(formatSize(52 * 1024 * 1024 + 7)).toBe('52 MB');
  });
});
