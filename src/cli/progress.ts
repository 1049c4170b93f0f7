// The progress bar on stderr: shown only on a TTY, and only once a run has taken longer than a second.

export interface ProgressStream {
  isTTY?: boolean;
  columns?: number;
  write(text: string): unknown;
}

export interface ProgressOptions {
  /** Show nothing until the run has lasted this long (ms). */
  delayMs?: number;
  /** Minimum time between redraws (ms). */
  intervalMs?: number;
  /** Monotonic clock in ms (injected for tests). */
  now?: () => number;
  label?: string;
}

export interface ProgressBar {
  /** Feed RunOptions.onProgress here. */
  update(done: number, total: number): void;
  /** Erases the bar if it was drawn. Call once, before printing results. */
  finish(): void;
  /** Whether anything has been drawn. */
  readonly shown: boolean;
}

const CLEAR_LINE = '\r\x1b[2K';

/** Renders one line of the bar for a width in columns (pure). */
export function renderProgressLine(
  label: string,
  done: number,
  total: number,
  elapsedMs: number,
  columns = 80,
): string {
  const fraction = total > 0 ? Math.min(1, Math.max(0, done / total)) : 0;
  const percent = `${Math.floor(fraction * 100)}%`.padStart(4);
  const tail = ` ${percent}  ${done}/${total} runs  ${(elapsedMs / 1000).toFixed(1)} s`;
  const barWidth = Math.max(10, Math.min(40, columns - label.length - tail.length - 4));
  const filled = Math.round(fraction * barWidth);
  return `${label} [${'#'.repeat(filled)}${'-'.repeat(barWidth - filled)}]${tail}`;
}

/** A bar that stays silent unless `stream` is a TTY and the run outlasts `delayMs`. */
export function createProgressBar(stream: ProgressStream, options: ProgressOptions = {}): ProgressBar {
  const now = options.now ?? (() => performance.now());
  const delayMs = options.delayMs ?? 1000;
  const intervalMs = options.intervalMs ?? 100;
  const label = options.label ?? 'simulating';
  const startMs = now();
  let shown = false;
  let finished = false;
  let lastDrawMs = Number.NEGATIVE_INFINITY;
  const enabled = stream.isTTY === true;
  return {
    update(done, total) {
      if (!enabled || finished) return;
      const t = now();
      if (t - startMs < delayMs) return;
      if (t - lastDrawMs < intervalMs && done < total) return;
      lastDrawMs = t;
      shown = true;
      stream.write(CLEAR_LINE + renderProgressLine(label, done, total, t - startMs, stream.columns || 80));
    },
    finish() {
      if (finished) return;
      finished = true;
      if (shown) stream.write(CLEAR_LINE);
    },
    get shown() {
      return shown;
    },
  };
}
