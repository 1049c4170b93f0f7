// Shared setup of the client tests: a fast policy, and undici agents that are closed after each test.
import { Agent, type Dispatcher } from 'undici';
import { afterEach } from 'vitest';
import { retryInterceptor, type SeawallClientOptions } from '../../../src/http/index.js';
import { RetryPolicy, type RetryPolicyConfig } from '../../../src/policy/index.js';

/** A policy with tiny waits and no budget, so each test isolates one mechanism. */
export function quick(config: RetryPolicyConfig = {}): RetryPolicy {
  return new RetryPolicy({ backoff: { kind: 'full-jitter', base: 1, cap: 5 }, budget: false, ...config });
}

export interface Agents {
  /** A new Agent composed with retryInterceptor(options) and then `more` (outermost last). */
  agentWith(options: SeawallClientOptions, ...more: Dispatcher.DispatcherComposeInterceptor[]): Dispatcher;
  /** Closes `agent` after the test too. */
  track(agent: Agent): Agent;
}

/** Call at the top of a test file: every agent it hands out is closed after each test. */
export function agentsClosedAfterEach(): Agents {
  let agents: Agent[] = [];
  afterEach(async () => {
    await Promise.all(agents.map((a) => a.close()));
    agents = [];
  });
  const track = (agent: Agent) => {
    agents.push(agent);
    return agent;
  };
  return {
    track,
    agentWith: (options, ...more) => track(new Agent()).compose(retryInterceptor(options), ...more),
  };
}
