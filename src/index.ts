// The package root, `seawall`: the HTTP drivers, execute and the sans-I/O policy core (re-exports only). The simulator is
// `seawall/sim` (it loads yaml and zod, which the drivers never need); the core alone is `seawall/policy`.

export * from './execute/index.js';
export * from './http/index.js';
export * from './policy/index.js';
