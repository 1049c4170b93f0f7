// One abort listener per AbortSignal however many calls wait on it: a long-lived signal shared by thousands of calls
// holds one listener (Node warns past 10: MaxListenersExceededWarning), and each call leaves its set when it ends.

/** A call waiting on a signal. */
export interface AbortWaiter {
  onAbort(signal: AbortSignal): void;
}

/** The calls waiting on each signal (held weakly: a signal nobody keeps is collected with its set). */
const waiting = new WeakMap<AbortSignal, Set<AbortWaiter>>();

function dispatch(event: Event): void {
  const signal = event.target as AbortSignal;
  const waiters = waiting.get(signal);
  if (waiters === undefined) return;
  waiting.delete(signal); // waiters that leave while we tell them find nothing to leave
  for (const waiter of waiters) waiter.onAbort(signal);
}

/** Tells `waiter` when `signal` aborts (once), until `stopWaiting`. */
export function waitForAbort(signal: AbortSignal, waiter: AbortWaiter): void {
  let waiters = waiting.get(signal);
  // @ko abort-fanout-one-listener
  if (waiters === undefined) {
    waiters = new Set();
    waiting.set(signal, waiters);
    signal.addEventListener('abort', dispatch, { once: true });
  }
  waiters.add(waiter);
}

/** `waiter` no longer waits on `signal`; the last one to leave removes the signal's listener. */
export function stopWaiting(signal: AbortSignal, waiter: AbortWaiter): void {
  const waiters = waiting.get(signal);
  if (waiters === undefined || !waiters.delete(waiter) || waiters.size > 0) return;
  waiting.delete(signal);
  signal.removeEventListener('abort', dispatch);
}
