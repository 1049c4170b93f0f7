// Public API of the seawall package: re-exports only.
export * from './policy/index.js';
