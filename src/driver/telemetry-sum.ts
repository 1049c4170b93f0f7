// Adds up the stats of every source (policy, server gate) exported under one name, held weakly, counters never falling.

interface Entry<S extends object> {
  readonly ref: WeakRef<S>;
  /** The values read from the source at the last collection (what it keeps contributing once it is gone). */
  last: readonly number[];
}

/**
 * The sources behind one attribute set on one meter (e.g. every policy exported as `seawall.policy: "default"`):
 * OpenTelemetry keeps one series per instrument and attribute set, so two sources observing it separately overwrite
 * each other; their values are added up here instead. Sources are held through WeakRefs, so a discarded policy or
 * middleware is not kept alive by its telemetry. Once one is garbage-collected, the values last read from it stay in
 * the total of each monotonic field (a counter must never go down: Prometheus would read a reset); what it counted
 * after the last collection is lost. Gauges (non-monotonic fields) simply lose it.
 */
export class SummedSources<S extends object> {
  private entries: Entry<S>[] = [];
  /** Membership in O(1) (a policy built per call must not make registration quadratic). */
  private readonly members = new WeakSet<S>();
  /** Entries kept at the last prune: sources collected since are dropped once the list has doubled. */
  private prunedAt = 0;
  private readonly retired: number[];

  /** `monotonic[i]`: field i is a counter. */
  constructor(private readonly monotonic: readonly boolean[]) {
    this.retired = monotonic.map(() => 0);
  }

  /** Adds a source; false if it is already there. Amortized O(1). */
  add(source: S): boolean {
    if (this.members.has(source)) return false;
    this.members.add(source);
    if (this.entries.length >= 2 * this.prunedAt + 32) this.prune();
    this.entries.push({ ref: new WeakRef(source), last: this.retired.map(() => 0) });
    return true;
  }

  /** Removes a source, keeping what it counted so far in the counters' totals. */
  delete(source: S): void {
    if (!this.members.has(source)) return;
    this.members.delete(source);
    const i = this.entries.findIndex((entry) => entry.ref.deref() === source);
    if (i < 0) return;
    this.retire(this.entries[i] as Entry<S>);
    this.entries.splice(i, 1);
  }

  /** Drops the entries of sources that were garbage-collected (their last values stay in the counters' totals). */
  private prune(): void {
    const live: Entry<S>[] = [];
    for (const entry of this.entries) {
      if (entry.ref.deref() === undefined) this.retire(entry);
      else live.push(entry);
    }
    this.entries = live;
    this.prunedAt = live.length;
  }

  /** Number of live sources (the ones not yet collected). */
  get size(): number {
    return this.entries.filter((entry) => entry.ref.deref() !== undefined).length;
  }

  /** Reads every live source once with `read` (one value per field) and returns the totals per field. */
  totals(read: (source: S) => readonly number[]): number[] {
    const live: Array<[Entry<S>, S]> = [];
    for (const entry of this.entries) {
      const source = entry.ref.deref();
      if (source === undefined) this.retire(entry);
      else live.push([entry, source]);
    }
    if (live.length !== this.entries.length) this.entries = live.map(([entry]) => entry);
    const totals = this.retired.slice();
    for (const [entry, source] of live) {
      const values = read(source);
      entry.last = values;
      for (let i = 0; i < totals.length; i++) totals[i] = (totals[i] as number) + (values[i] ?? 0);
    }
    return totals;
  }

  private retire(entry: Entry<S>): void {
    for (let i = 0; i < this.retired.length; i++) {
      if (this.monotonic[i]) this.retired[i] = (this.retired[i] as number) + (entry.last[i] ?? 0);
    }
  }
}
