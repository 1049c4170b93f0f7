// Builds docs/results.md in memory: runs the built-in scenarios (and the derived sweeps) and renders the document.

import {
  loadScenario,
  type Scenario,
  type SimulationResult,
  simulate,
  type VariantSpec,
} from '../../../src/sim/index.js';
import {
  FAST_ERROR_BASES,
  FAST_ERROR_SWEEPS,
  MANY_INSTANCES,
  MANY_INSTANCES_VARIANTS,
  type Results,
  sweepName,
} from './format.js';
import { queueingChecks } from './queueing.js';
import { renderResults } from './render.js';

/** The seeds of every figure in docs/results.md. */
export const SEEDS = [1, 2, 3];

export interface BuildOptions {
  /** Progress lines (one per scenario); default: none. */
  log?: (message: string) => void;
}

export interface BuiltResults {
  results: Results;
  markdown: string;
  /** Statements in the text the figures no longer bear out (also listed at the top of `markdown`). */
  brokenClaims: string[];
}

/** A scenario object built from a built-in one, with other variants (not a file: it exists only in this script). */
function derived(base: Scenario, name: string, variants: VariantSpec[]): Scenario {
  return {
    ...base,
    name,
    source: `${base.source} (variants derived in tools/docs/results/main.ts)`,
    variants,
    warnings: [],
  };
}

function variantOf(scenario: Scenario, name: string): VariantSpec {
  const variant = scenario.variants.find((v) => v.name === name);
  if (variant === undefined) throw new Error(`${scenario.name} has no variant ${name}`);
  return variant;
}

/** checkout-fast-errors' variants at other error rates, error costs and loads: only those numbers change. */
export function fastErrorSweep(): Scenario {
  const base = loadScenario('checkout-fast-errors');
  const variants: VariantSpec[] = [];
  for (const sweep of FAST_ERROR_SWEEPS) {
    for (const rate of sweep.errorRates) {
      for (const name of FAST_ERROR_BASES) {
        const model = structuredClone(variantOf(base, name).model);
        model.traffic = model.traffic.map((t) => ({ ...t, ratePerS: sweep.ratePerS }));
        model.faults = model.faults.map((f) => ({ ...f, errors: { rate, status: 500, costMs: sweep.costMs } }));
        variants.push({ name: sweepName(name, sweep, rate), description: null, model });
      }
    }
  }
  return derived(base, 'checkout-fast-errors-sweep', variants);
}

/** checkout-many-clients' variants with checkout-bff scaled further, to where per-instance floors add up. */
export function manyInstances(): Scenario {
  const base = loadScenario('checkout-many-clients');
  const variants = MANY_INSTANCES_VARIANTS.map((name): VariantSpec => {
    const model = structuredClone(variantOf(base, name).model);
    model.services = model.services.map((s) => (s.name === 'checkout-bff' ? { ...s, instances: MANY_INSTANCES } : s));
    return { name, description: null, model };
  });
  return derived(base, `checkout-many-clients-${MANY_INSTANCES}`, variants);
}

/** Every run behind docs/results.md (seeds 1-3, full length) and the document they give; deterministic. */
export async function buildResults(options: BuildOptions = {}): Promise<BuiltResults> {
  const log = options.log ?? (() => {});
  const run = async (scenario: Scenario): Promise<SimulationResult> => {
    const runs = scenario.variants.length * SEEDS.length;
    log(`${scenario.name}: ${scenario.variants.length} variants × ${SEEDS.length} seeds (${runs} runs)`);
    return simulate(scenario, { seeds: SEEDS });
  };
  const results: Results = {
    seeds: SEEDS,
    incident: await run(loadScenario('checkout-incident')),
    totalFailure: await run(loadScenario('checkout-total-failure')),
    normal: await run(loadScenario('checkout-normal')),
    fastErrors: await run(loadScenario('checkout-fast-errors')),
    sweep: await run(fastErrorSweep()),
    manyClients: await run(loadScenario('checkout-many-clients')),
    manyInstances: await run(manyInstances()),
    // runVariant per seed (not simulate): the checks need per-service queue details.
    queueing: queueingChecks(SEEDS),
  };
  const { markdown, brokenClaims } = renderResults(results);
  return { results, markdown, brokenClaims };
}
