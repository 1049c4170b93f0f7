// A lab service's outbound calls: one undici Agent per call edge, composed with Seawall's retryInterceptor as configured.

import { Agent, type Dispatcher, request } from 'undici';
import { SeawallError } from '../driver/errors.js';
import { type RetryInterceptorOptions, retryInterceptor, type SeawallInterceptor } from '../http/client/undici.js';
import { createRandom } from '../policy/core/random.js';
import { relayedStatus } from '../policy/hop/hop.js';
import { RetryPolicy } from '../policy/retry/retry.js';
import type { CallPlan } from './plan.js';
import { LAB_REQUEST_HEADER, LAB_USER_HEADER } from './records.js';

/** One call edge as a client: the policy (its budget is read for the gauges) and the composed dispatcher. */
export class EdgeClient {
  readonly policy: RetryPolicy;
  readonly interceptor: SeawallInterceptor;
  private readonly agent: Agent;
  private readonly dispatcher: Dispatcher;

  constructor(
    readonly call: CallPlan,
    readonly origin: string,
    seed: number,
  ) {
    const edge = call.edge;
    this.policy = new RetryPolicy(edge.policy, { random: createRandom(seed) });
    const options: RetryInterceptorOptions = {
      policy: this.policy,
      upstream: call.to,
      // A call without Seawall sends none of the hop headers and reads no claims (the simulator's `seawall: false`).
      propagate: edge.seawall,
      oneLayer: edge.oneLayer,
      telemetry: false,
      ...(edge.circuitBreaker === null ? {} : { circuitBreaker: edge.circuitBreaker }),
      ...(edge.limits === null ? {} : { limits: edge.limits }),
    };
    this.interceptor = retryInterceptor(options);
    // No connection cap: the simulator models none (a retry storm opens as many connections as it needs).
    this.agent = new Agent({ keepAliveTimeout: 10_000 });
    this.dispatcher = this.agent.compose(this.interceptor);
  }

  /**
   * Makes the call for inbound request `inbound` of user `user`; resolves with the status to relay: 200 when it
   * succeeded, else the status the last attempt got (504 when none: hop.ts relayedStatus), as the simulator answers.
   */
  async send(inbound: number, user: number): Promise<number> {
    try {
      const { statusCode, body } = await request(`${this.origin}/`, {
        dispatcher: this.dispatcher,
        headers: { [LAB_REQUEST_HEADER]: String(inbound), [LAB_USER_HEADER]: String(user) },
      });
      await body.dump();
      return statusCode < 400 ? 200 : relayedStatus(statusCode);
    } catch (error) {
      const last = error instanceof SeawallError ? (error.lastStatus ?? 0) : 0;
      return relayedStatus(last);
    }
  }

  /** The budget level of this call's policy (tokens, or free retry slots); NaN without a finite budget. */
  budgetLevel(): number {
    return this.policy.budgetFor(this.call.to).level();
  }

  async close(): Promise<void> {
    await this.agent.destroy();
  }
}
