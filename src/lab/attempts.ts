// Records every outbound attempt of a lab process from undici's diagnostics channels, and tags it with its parent key.

import diagnostics from 'node:diagnostics_channel';
import { type AttemptRecords, attemptKey, LAB_PARENT_HEADER, LAB_REQUEST_HEADER } from './records.js';

/** The part of undici's Request object the channels hand over that the recorder reads. */
interface UndiciRequest {
  origin: string;
  headers: string[];
  addHeader(name: string, value: string): unknown;
}

/**
 * Subscribes to undici's request channels for this process: on `create` (each attempt, after the retry interceptor
 * and before a byte is written) it gives the attempt an id, records it against the inbound request named by the
 * `x-lab-request` header and adds `x-lab-parent`; `headers` (the response head arrived) and `error` (failed or
 * aborted, e.g. a per-try timeout) end the wait. Requests without the header (none in the lab) are ignored.
 */
export class AttemptRecorder {
  private readonly ids = new WeakMap<object, number>();
  private readonly onCreate = (message: unknown) => this.created((message as { request: UndiciRequest }).request);
  private readonly onHeaders = (message: unknown) => {
    const m = message as { request: object; response: { statusCode: number } };
    this.ended(m.request, true, m.response.statusCode);
  };
  private readonly onError = (message: unknown) => this.ended((message as { request: object }).request, false, 0);

  constructor(
    private readonly service: number,
    private readonly records: AttemptRecords,
    /** Callee name by origin (`http://127.0.0.1:PORT`). */
    private readonly callees: ReadonlyMap<string, string>,
    private readonly nowMs: () => number,
  ) {}

  start(): void {
    diagnostics.subscribe('undici:request:create', this.onCreate);
    diagnostics.subscribe('undici:request:headers', this.onHeaders);
    diagnostics.subscribe('undici:request:error', this.onError);
  }

  stop(): void {
    diagnostics.unsubscribe('undici:request:create', this.onCreate);
    diagnostics.unsubscribe('undici:request:headers', this.onHeaders);
    diagnostics.unsubscribe('undici:request:error', this.onError);
  }

  private created(request: UndiciRequest): void {
    const headers = request.headers;
    let inbound = -1;
    for (let i = 0; i + 1 < headers.length; i += 2) {
      if (headers[i] === LAB_REQUEST_HEADER) inbound = Number(headers[i + 1]);
    }
    if (!(inbound >= 0)) return;
    const r = this.records;
    const id = r.to.length;
    r.to.push(this.callees.get(request.origin) ?? request.origin);
    r.request.push(inbound);
    r.startMs.push(this.nowMs());
    r.endMs.push(-1);
    r.answered.push(0);
    r.status.push(0);
    this.ids.set(request, id);
    request.addHeader(LAB_PARENT_HEADER, attemptKey(this.service, id));
  }

  private ended(request: object, answered: boolean, status: number): void {
    const id = this.ids.get(request);
    if (id === undefined) return;
    this.ids.delete(request);
    const r = this.records;
    if ((r.endMs[id] as number) >= 0) return;
    r.endMs[id] = this.nowMs();
    r.answered[id] = answered ? 1 : 0;
    r.status[id] = status;
  }
}
