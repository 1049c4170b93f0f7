// The naming trap docs/policy.md warns of: the default token bucket refuses retries for a while after an outage.
import { describe, expect, it } from 'vitest';
import { TokenBucket } from './budget.js';

describe('the default token bucket (10 / 0.1) after an outage', () => {
  it('refuses every retry until 51 successes have bought back more than half the bucket', () => {
    const bucket = new TokenBucket({ maxTokens: 10, tokenRatio: 0.1 });
    for (let i = 0; i < 100; i++) bucket.onFailure(); // the outage drains it to 0
    expect(bucket.tokens).toBe(0);
    for (let i = 0; i < 50; i++) {
      bucket.onSuccess();
      expect(bucket.allowRetry(), `after ${i + 1} successes`).toBe(false);
    }
    expect(bucket.tokens).toBe(5); // exactly half is still denied
    bucket.onSuccess();
    expect(bucket.allowRetry()).toBe(true);
  });
});
