// The client's telemetry through the real OpenTelemetry SDK (providers not registered globally): series, methods, url.full.
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { KNOWN_METHODS_ENV, knownMethods, redactUrl } from '../../../src/driver/telemetry-attributes.js';
import { createFetch } from '../../../src/http/index.js';
import { RetryPolicy } from '../../../src/policy/index.js';
import { startServer, type TestServer } from '../../support/loopback.js';
import { collectGarbage, sdkMetrics, sdkTracing } from '../otel-sdk.js';

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const quick = () => new RetryPolicy({ backoff: 'none', budget: false });

async function calls(fetch: (url: string) => Promise<Response>, url: string, n: number): Promise<void> {
  for (let i = 0; i < n; i++) await (await fetch(url)).arrayBuffer();
}

describe('policy counters on one meter', () => {
  it('adds up two policies exported under the same name (4 + 5 calls export 9)', async () => {
    server = await startServer((_req, res) => res.end());
    const { provider, collect } = sdkMetrics();
    const meter = provider.getMeter('seawall');
    await calls(createFetch({ policy: quick(), telemetry: { meter } }), server.origin, 4);
    await calls(createFetch({ policy: quick(), telemetry: { meter } }), server.origin, 5);
    const collected = await collect();
    expect(collected.points('seawall.rq')).toHaveLength(1);
    expect(collected.value('seawall.rq', { 'seawall.policy': 'default' })).toBe(9);
    expect(collected.value('seawall.upstream_rq', { 'seawall.policy': 'default' })).toBe(9);
  });

  it('keeps policies of different names in different series', async () => {
    server = await startServer((_req, res) => res.end());
    const { provider, collect } = sdkMetrics();
    const meter = provider.getMeter('seawall');
    await calls(createFetch({ policy: quick(), telemetry: { meter, policyName: 'members' } }), server.origin, 4);
    await calls(createFetch({ policy: quick(), telemetry: { meter, policyName: 'orders' } }), server.origin, 5);
    const collected = await collect();
    expect(collected.value('seawall.rq', { 'seawall.policy': 'members' })).toBe(4);
    expect(collected.value('seawall.rq', { 'seawall.policy': 'orders' })).toBe(5);
  });

  it('counts a policy shared by two fetches once', async () => {
    server = await startServer((_req, res) => res.end());
    const { provider, collect } = sdkMetrics();
    const meter = provider.getMeter('seawall');
    const policy = quick();
    await calls(createFetch({ policy, telemetry: { meter } }), server.origin, 2);
    await calls(createFetch({ policy, telemetry: { meter } }), server.origin, 3);
    expect((await collect()).value('seawall.rq')).toBe(5);
  });

  it('does not keep a discarded policy alive, and what it exported stays in the counter', async () => {
    server = await startServer((_req, res) => res.end());
    const { provider, collect } = sdkMetrics();
    const meter = provider.getMeter('seawall');
    await calls(createFetch({ policy: quick(), telemetry: { meter } }), server.origin, 1);
    const discarded = await (async () => {
      const policy = quick();
      await calls(createFetch({ policy, telemetry: { meter } }), server.origin, 2);
      return new WeakRef(policy);
    })();
    expect((await collect()).value('seawall.rq')).toBe(3);
    await collectGarbage();
    expect(discarded.deref()).toBeUndefined();
    expect((await collect()).value('seawall.rq')).toBe(3); // a counter never goes down
  });
});

describe('HTTP semantic conventions', () => {
  it('records a method it does not know as _OTHER, keeps the original on the span and names the span HTTP', async () => {
    server = await startServer((_req, res) => res.end());
    const { provider, collect } = sdkMetrics();
    const tracing = sdkTracing();
    const telemetry = { meter: provider.getMeter('seawall'), tracer: tracing.provider.getTracer('seawall') };
    const fetch = createFetch({ policy: quick(), telemetry });
    await (await fetch(server.origin, { method: 'PURGE' })).arrayBuffer();
    await (await fetch(server.origin, { method: 'DELETE' })).arrayBuffer();
    expect(server.hits.map((hit) => hit.method)).toEqual(['PURGE', 'DELETE']);
    const [purge, del] = tracing.exporter.getFinishedSpans();
    expect(purge?.name).toBe('HTTP');
    expect(purge?.attributes).toMatchObject({
      'http.request.method': '_OTHER',
      'http.request.method_original': 'PURGE',
    });
    expect(del?.name).toBe('DELETE');
    expect(del?.attributes['http.request.method']).toBe('DELETE');
    expect(del?.attributes).not.toHaveProperty('http.request.method_original');
    const methods = (await collect())
      .points('http.client.request.duration')
      .map((point) => point.attributes['http.request.method'])
      .sort();
    expect(methods).toEqual(['DELETE', '_OTHER']);
  });

  it('takes the known methods from OTEL_INSTRUMENTATION_HTTP_KNOWN_METHODS, a full override', async () => {
    expect([...knownMethods({})].sort()).toEqual(
      ['CONNECT', 'DELETE', 'GET', 'HEAD', 'OPTIONS', 'PATCH', 'POST', 'PUT', 'TRACE'].sort(),
    );
    expect([...knownMethods({ [KNOWN_METHODS_ENV]: 'GET, PURGE,' })]).toEqual(['GET', 'PURGE']);
    server = await startServer((_req, res) => res.end());
    const tracing = sdkTracing();
    process.env[KNOWN_METHODS_ENV] = 'GET,PURGE';
    try {
      const fetch = createFetch({ policy: quick(), telemetry: { tracer: tracing.provider.getTracer('seawall') } });
      await (await fetch(server.origin, { method: 'PURGE' })).arrayBuffer();
    } finally {
      delete process.env[KNOWN_METHODS_ENV];
    }
    const [span] = tracing.exporter.getFinishedSpans();
    expect(span?.name).toBe('PURGE');
    expect(span?.attributes['http.request.method']).toBe('PURGE');
  });

  it('redacts the signature values of the query in url.full and keeps their keys', async () => {
    server = await startServer((_req, res) => res.end());
    const tracing = sdkTracing();
    const fetch = createFetch({ policy: quick(), telemetry: { tracer: tracing.provider.getTracer('seawall') } });
    await (await fetch(`${server.origin}/file?color=blue&sig=c2VjcmV0&X-Goog-Signature=abc#top`)).arrayBuffer();
    expect(server.hits[0]?.url).toBe('/file?color=blue&sig=c2VjcmV0&X-Goog-Signature=abc'); // sent as given
    const [span] = tracing.exporter.getFinishedSpans();
    expect(span?.attributes['url.full']).toBe(
      `${server.origin}/file?color=blue&sig=REDACTED&X-Goog-Signature=REDACTED#top`,
    );
  });

  it('redacts the credentials of a URL in url.full, even for an attempt that fails', async () => {
    server = await startServer((_req, res) => res.end());
    const tracing = sdkTracing();
    const fetch = createFetch({
      policy: new RetryPolicy({ backoff: 'none', budget: false, maxAttempts: 1 }),
      telemetry: { tracer: tracing.provider.getTracer('seawall') },
    });
    const url = `http://alice:hunter2@127.0.0.1:${server.port}/x`;
    await fetch(url).then(
      (response) => response.arrayBuffer(),
      () => undefined, // fetch refuses URLs with credentials; the attempt's span is there all the same
    );
    const spans = tracing.exporter.getFinishedSpans();
    expect(spans).toHaveLength(1);
    expect(spans[0]?.attributes['url.full']).toBe(`http://REDACTED:REDACTED@127.0.0.1:${server.port}/x`);
    expect(JSON.stringify(spans[0]?.attributes)).not.toContain('hunter2');
  });
});

describe('redactUrl', () => {
  // Expected values: OTel semconv url.full (REDACTED:REDACTED userinfo; AWSAccessKeyId, Signature, sig, X-Goog-Signature).
  it.each([
    ['http://h/x', 'http://h/x'],
    ['https://u:p@h:8443/x?a=1', 'https://REDACTED:REDACTED@h:8443/x?a=1'],
    ['http://user@h/', 'http://REDACTED:REDACTED@h/'],
    ['http://a@b@h/', 'http://REDACTED:REDACTED@h/'],
    ['http:u:p@h/x', 'http://REDACTED:REDACTED@h/x'],
    [
      'http://h/p?AWSAccessKeyId=k&Signature=s&Expires=1',
      'http://h/p?AWSAccessKeyId=REDACTED&Signature=REDACTED&Expires=1',
    ],
    ['http://h/p?SIG=keep&sig=', 'http://h/p?SIG=keep&sig='],
    ['http://h/p?si%67=x', 'http://h/p?si%67=REDACTED'],
    ['http://h/p#frag?sig=x', 'http://h/p#frag?sig=x'],
    ['http://h/p?e=a@b.example', 'http://h/p?e=a@b.example'],
    ['http://u:p@[::1/', 'http://REDACTED:REDACTED@[::1/'],
  ])('%s is recorded as %s', (url, expected) => {
    expect(redactUrl(url)).toBe(expected);
  });

  it('returns a URL without userinfo or query as it is', () => {
    const url = `http://127.0.0.1:8080/${'segment/'.repeat(4)}`;
    expect(redactUrl(url)).toBe(url);
  });

  it('never lets the password or a signature of a URL built with them through (10,000 URLs)', () => {
    const marker = 'pässwörd';
    fc.assert(
      fc.property(
        fc.webUrl({ withQueryParameters: true, withFragments: true, authoritySettings: { withPort: true } }),
        fc.string(),
        fc.string({ unit: 'binary' }),
        fc.constantFrom('AWSAccessKeyId', 'Signature', 'sig', 'X-Goog-Signature'),
        (base, user, rest, key) => {
          const url = new URL(base);
          url.username = user;
          url.password = marker + rest;
          url.searchParams.append(key, `${marker}${rest}`);
          const redacted = redactUrl(url.href);
          expect(redacted).not.toContain(url.password);
          expect(redacted).not.toContain(encodeURIComponent(marker));
          expect(redacted).not.toContain(marker);
          expect(new URL(redacted).password).toBe('REDACTED');
        },
      ),
      { numRuns: 10_000 },
    );
  });

  it('never throws, whatever the string (10,000 strings)', () => {
    fc.assert(
      fc.property(
        fc.constantFrom('', 'http://', 'https:', 'HTTP:\\\\', 'ws://u:p@', 'x:'),
        fc.string({ unit: 'grapheme-composite' }),
        (prefix, rest) => {
          expect(typeof redactUrl(prefix + rest)).toBe('string');
        },
      ),
      { numRuns: 10_000 },
    );
  });
});
