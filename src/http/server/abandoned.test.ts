// answerAbandoned in-process: the deadline race (a call's timer and the request's fire in the same millisecond).
import type { IncomingMessage, ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { admitted, answerAbandoned } from './abandoned.js';
import { InboundRequest } from './core.js';

function response(): { res: ServerResponse; status: () => number | null } {
  let status: number | null = null;
  const res = {
    writableEnded: false,
    headersSent: false,
    destroyed: false,
    writeHead(code: number) {
      status = code;
      return res;
    },
    end() {
      res.writableEnded = true;
    },
    destroy() {
      res.destroyed = true;
    },
  };
  return { res: res as unknown as ServerResponse, status: () => status };
}

const deadlineExceeded = Object.assign(new Error('deadline'), {
  code: 'SEAWALL_CALL_FAILED',
  reason: 'deadline-exceeded',
});

describe('answerAbandoned', () => {
  it("answers 504 for a call's deadline-exceeded at the request's deadline, before the request's own timer fired", () => {
    const request = new InboundRequest(Date.now() - 1, false);
    const req = {} as IncomingMessage;
    admitted(req, request);
    expect(request.aborted).toBeNull(); // its timer has not run: the call's fired first
    const { res, status } = response();
    expect(answerAbandoned(deadlineExceeded, req, res)).toBe(true);
    expect(status()).toBe(504);
    expect(request.aborted).toBe('deadline');
  });

  it('leaves a deadline-exceeded well before the request deadline to the application (a shorter deadline of its own)', () => {
    const request = new InboundRequest(Date.now() + 60_000, false);
    const req = {} as IncomingMessage;
    admitted(req, request);
    const { res, status } = response();
    expect(answerAbandoned(deadlineExceeded, req, res)).toBe(false);
    expect(status()).toBeNull();
    expect(request.aborted).toBeNull();
  });
});
