// The sans-I/O policy core's public surface: re-exports only.
export * from './config-error.js';
export * from './duration.js';
export * from './types.js';
