// What the attempt loop publishes: seawall:retry, seawall:give-up, seawall:budget-refused and the onRetry / onGiveUp hooks.

import type { Outcome, StopReason } from '../policy/core/types.js';
import {
  type BudgetRefusedEvent,
  budgetRefusedChannel,
  type ClientHooks,
  type ClientKind,
  callHook,
  type GiveUpEvent,
  giveUpChannel,
  type RetryEvent,
  retryChannel,
} from './events.js';
import type { UpstreamRefusal } from './upstream/scopes.js';

/** The client a call belongs to, as events see it. */
export interface EventSource {
  readonly kind: ClientKind;
  readonly hooksWarned: Set<string>;
  readonly settings: { readonly hooks: ClientHooks };
}

/** The facts every client event of one call carries. */
export type CallEventBase = Pick<RetryEvent, 'client' | 'upstream' | 'method' | 'url' | 'elapsedMs'>;

/** Someone listens for retries: a subscriber, or the onRetry hook (checked on each retry: subscribers come and go). */
export function retryObserved(client: EventSource): boolean {
  return retryChannel.hasSubscribers || client.settings.hooks.onRetry !== undefined;
}

/** Publishes a granted retry on `seawall:retry` and tells onRetry. */
export function publishRetry(
  client: EventSource,
  base: CallEventBase,
  attempt: number,
  delayMs: number,
  outcome: Outcome,
  status: number | null,
  error: unknown,
): void {
  const event: RetryEvent = { ...base, attempt, delayMs, outcome: outcome.kind, status, error };
  const hook = client.settings.hooks.onRetry;
  // The hook first, with its own object: what a subscriber writes into the shared payload never reaches it.
  if (hook !== undefined)
    callHook(hook, retryChannel.hasSubscribers ? { ...event } : event, 'onRetry', client.hooksWarned);
  if (retryChannel.hasSubscribers) retryChannel.publish(event);
}

/** What a give-up event reports about the call that ended. */
export interface GiveUpFacts {
  readonly reason: StopReason;
  /** Attempts begun (the policy's count): the attempt whose retry a budget refused. */
  readonly attempt: number;
  /** Attempts sent. */
  readonly attempts: number;
  readonly refusal: UpstreamRefusal | null;
  readonly status: number | null;
  readonly error: unknown;
}

/** Is anyone told about a give-up with this reason? (Then the runner builds the facts.) */
export function giveUpObserved(client: EventSource, reason: StopReason): boolean {
  return (
    giveUpChannel.hasSubscribers ||
    client.settings.hooks.onGiveUp !== undefined ||
    (reason === 'budget-exhausted' && budgetRefusedChannel.hasSubscribers)
  );
}

/** Publishes a give-up (`seawall:give-up`, onGiveUp) and, when the budget refused the retry, `seawall:budget-refused`. */
export function publishGiveUp(client: EventSource, base: CallEventBase, facts: GiveUpFacts): void {
  const { reason, refusal, status, error } = facts;
  if (reason === 'budget-exhausted' && budgetRefusedChannel.hasSubscribers) {
    const event: BudgetRefusedEvent = { ...base, attempt: facts.attempt, refusal, status, error };
    budgetRefusedChannel.publish(event);
  }
  const hook = client.settings.hooks.onGiveUp;
  if (hook === undefined && !giveUpChannel.hasSubscribers) return;
  const event: GiveUpEvent = { ...base, reason, attempts: facts.attempts, status, error, refusal };
  if (hook !== undefined)
    callHook(hook, giveUpChannel.hasSubscribers ? { ...event } : event, 'onGiveUp', client.hooksWarned);
  if (giveUpChannel.hasSubscribers) giveUpChannel.publish(event);
}
