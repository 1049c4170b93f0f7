// The sans-I/O policy core's public surface: re-exports only.
export * from './backoff.js';
export * from './budget.js';
export * from './classify.js';
export * from './config-error.js';
export * from './deadline.js';
export * from './duration.js';
export * from './hop.js';
export * from './ownership.js';
export * from './random.js';
export * from './ratio-budget.js';
export * from './retry.js';
export * from './retry-after.js';
export * from './retry-config.js';
export * from './retry-stats.js';
export * from './shed.js';
export * from './types.js';
