// outcomeOfError reads a failed TLS handshake as a connect failure, through isHandshakeFailure (issue #25 item 3).
import { describe, expect, it } from 'vitest';
import { isHandshakeFailure, outcomeOfError, RESPONDING, SENT, UNSENT } from './outcome.js';

function coded(code: string, message = 'handshake failed'): Error {
  return Object.assign(new Error(message), { code });
}

/** What fetch hands on: undici's error as the cause of a TypeError. */
function viaFetch(error: Error): TypeError {
  return new TypeError('fetch failed', { cause: error });
}

const HANDSHAKE = [
  'ERR_SSL_WRONG_VERSION_NUMBER',
  'ERR_SSL_PACKET_LENGTH_TOO_LONG',
  'ERR_SSL_TLSV1_ALERT_PROTOCOL_VERSION',
  'ERR_TLS_CERT_ALTNAME_INVALID',
  'ERR_TLS_HANDSHAKE_TIMEOUT',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'EPROTO',
];

describe('a failed TLS handshake is a connect failure', () => {
  it.each(HANDSHAKE)('%s, before the response, from either driver', (code) => {
    expect(isHandshakeFailure(code, '')).toBe(true);
    expect(outcomeOfError(viaFetch(coded(code)), SENT)).toEqual({ kind: 'connect-failure' });
    expect(outcomeOfError(coded(code), UNSENT)).toEqual({ kind: 'connect-failure' });
    // After the response head, a broken connection is a reset mid-response, as for a connect error.
    expect(outcomeOfError(coded(code), RESPONDING)).toEqual({ kind: 'reset', stage: 'mid-response' });
  });

  it('the peer closing during the handshake (node: ECONNRESET "before secure TLS connection was established")', () => {
    const closed = coded(
      'ECONNRESET',
      'Client network socket disconnected before secure TLS connection was established',
    );
    expect(outcomeOfError(viaFetch(closed), SENT)).toEqual({ kind: 'connect-failure' });
    // Any other ECONNRESET is still a reset that may have followed the request.
    expect(outcomeOfError(viaFetch(coded('ECONNRESET', 'read ECONNRESET')), SENT)).toEqual({
      kind: 'reset',
      stage: 'after-request',
    });
  });

  it('a TLS error on a connection undici reported established is a reset after the request, not a handshake', () => {
    expect(outcomeOfError(coded('ERR_SSL_DECRYPTION_FAILED_OR_BAD_RECORD_MAC'), SENT, true)).toEqual({
      kind: 'reset',
      stage: 'after-request',
    });
  });

  it('codes that are no TLS failure are unchanged', () => {
    for (const code of ['ENOENT', 'ERR_INVALID_ARG_TYPE', 'UND_ERR_ABORTED', 'CERTAIN']) {
      expect(isHandshakeFailure(code, '')).toBe(false);
    }
  });
});
