// Tests for the stderr progress bar: silent off a TTY and for short runs, drawn and erased otherwise.
import { describe, expect, it } from 'vitest';
import { createProgressBar, renderProgressLine } from './progress.js';

function fakeStream(isTTY: boolean) {
  const writes: string[] = [];
  return { isTTY, columns: 80, writes, write: (text: string) => writes.push(text) };
}

describe('createProgressBar', () => {
  it('draws nothing when stderr is not a TTY, however long the run', () => {
    let now = 0;
    const stream = fakeStream(false);
    const bar = createProgressBar(stream, { now: () => now });
    now = 60_000;
    bar.update(1, 2);
    bar.finish();
    expect(stream.writes).toEqual([]);
  });

  it('draws nothing during the first second', () => {
    let now = 0;
    const stream = fakeStream(true);
    const bar = createProgressBar(stream, { now: () => now });
    now = 999;
    bar.update(1, 2);
    bar.finish();
    expect(stream.writes).toEqual([]);
    expect(bar.shown).toBe(false);
  });

  it('draws after a second, throttles redraws, always draws completion, and erases itself at the end', () => {
    let now = 0;
    const stream = fakeStream(true);
    const bar = createProgressBar(stream, { now: () => now });
    now = 1500;
    bar.update(1, 4);
    now = 1550;
    bar.update(2, 4); // throttled
    now = 1560;
    bar.update(4, 4); // completion is always drawn
    bar.finish();
    expect(stream.writes).toHaveLength(3);
    expect(stream.writes[0]).toContain('1/4');
    expect(stream.writes[1]).toContain('4/4');
    expect(stream.writes[2]).toBe('\r\x1b[2K');
    bar.update(4, 4);
    expect(stream.writes).toHaveLength(3);
  });
});

describe('renderProgressLine', () => {
  it('shows a bar, the percentage, the count and the elapsed time within the width', () => {
    const line = renderProgressLine('simulating', 5, 20, 2_345, 80);
    expect(line).toMatch(/^simulating \[#+-+\] {2}25% {2}5\/20 runs {2}2\.3 s$/);
    expect(line.length).toBeLessThanOrEqual(80);
  });
});
