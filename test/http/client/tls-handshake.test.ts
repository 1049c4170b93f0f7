// A failed TLS handshake is a failed connect (issue #25 item 3): over 127.0.0.1, a POST goes to the next endpoint, the endpoint is ejected.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer as createHttpsServer } from 'node:https';
import { createServer as createTcpServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { createFetch } from '../../../src/http/index.js';
import { type Loopback, listenLoopback } from '../../support/loopback.js';
import { agentsClosedAfterEach, quick } from './client-setup.js';
import { ok, serversClosedAfterEach } from './upstream-helpers.js';

const start = serversClosedAfterEach();
const { agentWith } = agentsClosedAfterEach();
const SERVICE = 'http://member-api.invalid';

/** A self-signed certificate made with openssl for this run (null when openssl is missing: those cases are skipped). */
function selfSigned(): { key: string; cert: string } | null {
  const dir = mkdtempSync(join(tmpdir(), 'seawall-tls-'));
  try {
    const key = join(dir, 'key.pem');
    const cert = join(dir, 'cert.pem');
    const args = ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
    execFileSync('openssl', [...args, '-keyout', key, '-out', cert, '-days', '1', '-subj', '/CN=127.0.0.1'], {
      stdio: 'ignore',
      timeout: 10_000,
    });
    return { key: readFileSync(key, 'utf8'), cert: readFileSync(cert, 'utf8') };
  } catch {
    return null;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const CERT = selfSigned();

/** A server a TLS client fails its handshake with, and how many connections it accepted. */
interface BadTls {
  origin: string;
  connections(): number;
}

let running: Loopback[] = [];
afterEach(async () => {
  await Promise.all(running.map((s) => s.close()));
  running = [];
});

async function badTls(kind: BadKind): Promise<BadTls> {
  let server: Server;
  if (kind === 'self-signed') {
    // A real TLS server whose certificate the client does not trust: DEPTH_ZERO_SELF_SIGNED_CERT.
    server = createHttpsServer({ key: CERT?.key, cert: CERT?.cert }, (_req, res) => res.end('never reached'));
  } else {
    // A plain TCP server: answers the ClientHello with plain text (an OpenSSL ERR_SSL_* error), or closes
    // (node's ECONNRESET "Client network socket disconnected before secure TLS connection was established").
    // Both answer once the ClientHello has been read, so the client sees the answer (or a clean close), not a reset.
    server = createTcpServer((socket) => {
      socket.once('data', () => {
        if (kind === 'garbage') socket.end('HTTP/1.1 400 Bad Request\r\nconnection: close\r\n\r\nnot TLS\r\n');
        else socket.end();
      });
    });
  }
  let accepted = 0;
  server.on('connection', () => accepted++);
  const loopback = await listenLoopback(server);
  running.push(loopback);
  return { origin: `https://127.0.0.1:${loopback.port}`, connections: () => accepted };
}

type BadKind = 'garbage' | 'closes' | 'self-signed';
const KINDS: Array<[string, BadKind]> = [
  ['answers plain text', 'garbage'],
  ['closes during the handshake', 'closes'],
];
if (CERT !== null) KINDS.push(['presents a self-signed certificate', 'self-signed']);

describe('a failed TLS handshake is a connect failure: a POST is sent again elsewhere', () => {
  it.each(KINDS)('fetch: the first endpoint %s; the POST succeeds on the second', async (_what, kind) => {
    const bad = await badTls(kind);
    const [good] = await start(ok);
    const fetch = createFetch({ policy: quick({ maxAttempts: 2 }), endpoints: [bad.origin, good?.origin as string] });
    const response = await fetch(`${SERVICE}/orders`, { method: 'POST', body: 'order' });
    expect(response.status).toBe(200);
    expect(await response.text()).toBe('ok');
    expect(bad.connections()).toBe(1);
    expect(good?.hits.map((h) => h.method)).toEqual(['POST']);
    expect(fetch.stats().policy).toMatchObject({ calls: 1, active: 0, attempts: 2, retries: 1 });
  });

  it.each(KINDS)('undici: the first endpoint %s; the POST succeeds on the second', async (_what, kind) => {
    const bad = await badTls(kind);
    const [good] = await start(ok);
    const dispatcher = agentWith({
      policy: quick({ maxAttempts: 2 }),
      endpoints: [bad.origin, good?.origin as string],
    });
    const response = await request(`${SERVICE}/orders`, { method: 'POST', body: 'order', dispatcher });
    expect(response.statusCode).toBe(200);
    expect(await response.body.text()).toBe('ok');
    expect(bad.connections()).toBe(1);
    expect(good?.hits.map((h) => h.method)).toEqual(['POST']);
  });
});

describe('outlier detection counts a failed handshake as a connect failure', () => {
  it.each(KINDS)('the endpoint that %s is ejected; the rest of the traffic goes to the other', async (_what, kind) => {
    const bad = await badTls(kind);
    const [good] = await start(ok);
    const fetch = createFetch({
      policy: quick({ maxAttempts: 1 }),
      endpoints: [bad.origin, good?.origin as string],
      outlierDetection: { consecutive5xx: 1, maxEjectionPercent: 50 },
    });
    const ends: string[] = [];
    for (let i = 0; i < 6; i++) {
      try {
        const response = await fetch(`${SERVICE}/x`);
        ends.push(String(response.status));
        await response.text();
      } catch (error) {
        ends.push((error as { reason?: string }).reason ?? 'thrown');
      }
    }
    // The one call that met the handshake failure gave up as a connect failure would (one attempt allowed).
    expect(ends).toEqual(['attempts-exhausted', '200', '200', '200', '200', '200']);
    expect(bad.connections()).toBe(1);
    const stats = fetch.stats();
    expect(stats.signals['outlier_detection.ejections_active']).toBe(1);
    expect(stats.upstreams[0]?.endpoints.map((e) => e.ejected)).toEqual([true, false]);
  });
});
