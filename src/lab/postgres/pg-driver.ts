// Loading node-postgres (`pg`), an optional peer dependency that only `seawall lab` needs.

import { LabError } from '../errors.js';

type Pg = typeof import('pg');

/** The `pg` module, imported on first use; a LabError with code `pg-missing` when it is not installed. */
export async function loadPg(): Promise<Pg> {
  let loaded: Pg & { default?: Pg };
  try {
    loaded = (await import('pg')) as Pg & { default?: Pg };
  } catch (error) {
    throw new LabError('pg-missing', 'the lab needs the pg package: npm install pg', { cause: error });
  }
  // pg is CommonJS: under ESM its API is the default export (named exports are only what cjs-module-lexer finds).
  return loaded.default ?? loaded;
}
