// Public API of the seawall package: re-exports only.

export * from './http/index.js';
export * from './policy/index.js';
export * from './sim/index.js';
