// Knock-outs of issue #25 items 6 and 7: the simulator's input stays linear, bounded and clearly refused.

import type { Knockout } from './knockout.js';

const YAML = ['src/sim/scenario/yaml-bounds.test.ts'];

export const HOSTILE2_SIM_KNOCKOUTS: Knockout[] = [
  {
    id: 'yaml-duplicate-keys-linear',
    mechanism: "duplicate keys are found by a Set per mapping, not by the yaml package's quadratic check",
    mark: 'yaml-duplicate-keys-linear',
    find: 'uniqueKeys: false',
    replace: 'uniqueKeys: true',
    tests: YAML,
  },
  {
    id: 'yaml-duplicate-key-set',
    mechanism: 'a key written twice in one mapping is a problem with its line and column',
    mark: 'yaml-duplicate-key-set',
    find: 'if (seen.has(key.value)) offsets.push(key.range?.[0] ?? 0);',
    replace: 'void 0;',
    tests: YAML,
  },
  {
    id: 'yaml-alias-bomb-clear',
    mechanism: 'an alias bomb is a problem of the file, not an internal error',
    mark: 'yaml-alias-bomb-clear',
    find: '} catch (error) {',
    replace: '} catch (error) { if (error) throw error;',
    tests: YAML,
  },
  {
    id: 'scenario-too-many-services',
    mechanism: 'a file with more services than instances allowed is refused at once, with the figure',
    mark: 'scenario-too-many-services',
    find: 'if (count <= MAX_TOTAL_INSTANCES) continue;',
    replace: 'continue;',
    tests: YAML,
  },
  {
    id: 'scenario-problems-bounded',
    mechanism: 'a report lists the first 50 problems and counts the rest',
    mark: 'scenario-problems-bounded',
    find: 'if (problems.length <= max) return [...problems];',
    replace: 'return [...problems];',
    tests: ['src/sim/scenario/errors.test.ts', 'src/cli/run.test.ts'],
  },
  {
    id: 'sim-call-graph-iterative',
    mechanism: 'the call-cycle check walks a 9,000-deep chain with its own stack, to the end',
    mark: 'sim-call-graph-iterative',
    find: 'state.set(to, 1);\n        stack.push(to);\n        next.push(0);',
    replace: 'state.set(to, 2);',
    tests: ['src/sim/scenario/resolve.test.ts'],
  },
  {
    id: 'sim-work-estimate-refused',
    mechanism: 'a scenario asking for more service requests than maxRequests is refused up front, with the estimate',
    mark: 'sim-work-estimate-refused',
    find: 'if (!(requests > limit)) return;',
    replace: 'return;',
    tests: ['src/sim/scenario/work.test.ts'],
  },
  {
    id: 'sim-fault-apply-in-force',
    mechanism: "a fault's start or end looks only at its service's faults in force, not at every fault",
    mark: 'sim-fault-apply-in-force',
    find: 'faultStateOver(faults, inForce, instance.index)',
    replace:
      'faultStateOver(faults, faults.map((_, i) => i).filter((i) => faultActive[i] && faults[i]?.service === service.spec.name), instance.index)',
    tests: ['src/sim/model/faults.test.ts'],
  },
];
