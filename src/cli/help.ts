// The text `seawall --help` and each command's `--help` print: every line fits 80 columns (HELP_WIDTH).

import type { HelpTopic } from './args.js';

/** The widest help line: an 80-column terminal shows every help text without wrapping. */
export const HELP_WIDTH = 80;

const MESH_IMPORT_HELP = `Usage: seawall mesh import <envoy-or-istio.yaml> [--map HOST=SERVICE ...]
         [--scenario NAME|PATH] [--variant NAME] [--out PATH] [--json]

Reads Envoy (bootstraps, RouteConfigurations, Clusters) or Istio
(VirtualService, DestinationRule, Sidecar) and writes the Seawall scenario
that runs those settings. With --scenario, the output extends that scenario
and adds one variant (default: mesh) with the settings on its calls.

Options:
  --map HOST=SERVICE  the service a host or cluster name stands for (default:
                      its first DNS label); repeat it
  --scenario NAME     built-in name or path: import over that scenario's
                      services, traffic and faults
  --variant NAME      the variant to write (default mesh)
  --out PATH          the scenario file to write (default: stdout)
  --json              one JSON document { yaml, out, warnings, unmapped }

Exit codes: 0 done, 1 the input is invalid, 2 the command line is wrong.
Example: seawall mesh import \\
           node_modules/seawall/examples/mesh/istio-checkout.yaml \\
           --scenario checkout-incident --out out/mesh.yaml`;

const MESH_EXPORT_HELP = `Usage: seawall mesh export <scenario> [--variant NAME]
         [--format envoy|istio|both] [--out DIR] [--namespace NS]

Writes the Envoy bootstraps and Istio resources that enforce a variant's
policy in the mesh. What the mesh cannot say is reported as warnings (stderr,
each said once with the calls it applies to, and the files' comments).

Options:
  --variant NAME      the variant to export (default: the first)
  --format F          envoy, istio or both (default both)
  --out DIR           write DIR/envoy/<service>.yaml, DIR/istio/<variant>.yaml
                      (default: every document on stdout)
  --namespace NS      the Kubernetes namespace of the hosts (default default)

Exit codes: 0 done, 1 the input is invalid, 2 the command line is wrong.
Example: seawall mesh export checkout-incident --variant good --out out/mesh`;

const MESH_HELP = `Usage: seawall mesh import <envoy-or-istio.yaml> [options]
       seawall mesh export <scenario> [options]

import: Envoy or Istio settings -> a Seawall scenario that runs them
        (seawall mesh import --help)
export: a scenario variant's policy -> Envoy and Istio config
        (seawall mesh export --help)`;

const LINT_HELP = `Usage: seawall lint <scenario.yaml | built-in | envoy-or-istio.yaml>
         [--variant NAME] [--json] [--wide] [--map HOST=SERVICE ...]

Worst-case attempts per user request at every service along every call path,
layers that retry above another retrying layer, per-try timeouts that do not
fit the overall timeout, retries of non-idempotent requests, retries without
a budget or max_retries, and outlier detection without a safe
maxEjectionPercent. One finding per paragraph with its path and a fix, wrapped
to the terminal. A mesh config is imported first.

Options:
  --variant NAME      lint only this variant (default: every variant)
  --json              one JSON document on stdout: { reports, errors, warnings }
  --wide              one line per finding, however long (for grep)
  --map HOST=SERVICE  as for mesh import

Exit codes: 0 no errors (warnings allowed), 1 errors found or the input is
invalid, 2 the command line is wrong.
Example: seawall lint checkout-incident --variant bad`;

const LAB_HELP = `Usage: seawall lab [scenario] [--variant NAME ...] [--scale S] [--duration D]
         [--db URL] [--seed N] [--out DIR] [--json] [--wide]

Replays a scenario on real processes: one Node.js process per service on
127.0.0.1 running Seawall's own client and middleware as the variant says,
PostgreSQL behind the service that does the work (each request a pg_sleep
query of its service time), open-loop Poisson users with the scenario's
patience, the faults on schedule. Then runs the simulator on the same scaled
scenario and sets the two side by side, in a table that fits 100 columns.

Options:
  scenario        a scenario file or built-in name (default checkout-incident)
  --variant NAME  run only this variant; repeat it or use commas (default:
                  every variant)
  --scale S       rates and pool sizes x S, in (0, 1] (default 0.1: 70 users/s,
                  5 DB connections)
  --duration D    run this long instead of the scenario's duration (45s, 2m;
                  not shorter than its windows)
  --db URL        use this PostgreSQL (postgres://...); default: a throwaway
                  cluster started and removed here
  --seed N        the random seed of arrivals, service times and jitter
                  (default 1)
  --out DIR       write DIR/summary.json, DIR/timeseries.csv, DIR/report.html
  --json          print summary.json on stdout instead of the table
  --wide          every check in the table (default: fit 100 columns, leaving
                  out the load in the windows before the last first)

Needs PostgreSQL's server binaries (Debian: apt-get install postgresql) unless
--db is given, and the pg package.
Exit codes: 0 done, 1 the lab could not run, 2 the command line is wrong.
Example: seawall lab checkout-incident --variant bad,good --out out/lab`;

const SIMULATE_HELP = `Usage: seawall simulate <file.yaml | built-in> [options]
       seawall simulate --list              list the built-in scenarios
       seawall simulate <scenario> --list   list a scenario's variants

Runs a scenario in Seawall's deterministic simulator with every variant (or
the ones named) and prints a table that fits the terminal (80 columns when its
width is unknown): success per window, the deepest service's load after the
trigger (attempts per user request), recovery time ("no trigger" without
faults) and wasted work, each explained under the table. With several seeds,
each variant gets a mean row: mean±spread, the spread being the largest
distance of a seed from the mean. --wide prints every column.

Options:
  --variant NAME  run only this variant; repeat it or use commas for several
                  (default: all, in file order)
  --seed N        the random seed (default 1); same scenario and seed = same
                  results
  --seeds 1,2,3   run every variant with each of these seeds
  --json          print the summary as exactly one JSON document on stdout
  --out DIR       also write DIR/summary.json, DIR/timeseries.csv and
                  DIR/report.html
  --list          list scenarios or variants instead of running
  --wide          every column: p99, goodput and load at every service per
                  window, retry radius, retries per call edge (no width limit)
  -h, --help      show this help

Flags take --wide or --wide=true. Exit codes: 0 done, 1 the scenario is
invalid or the run failed, 2 the command line is wrong.
Example: seawall simulate checkout-incident --out out/checkout-incident`;

const TOPICS: Record<Exclude<HelpTopic, 'main'>, string> = {
  simulate: SIMULATE_HELP,
  mesh: MESH_HELP,
  'mesh import': MESH_IMPORT_HELP,
  'mesh export': MESH_EXPORT_HELP,
  lint: LINT_HELP,
  lab: LAB_HELP,
};

export function helpText(topic: HelpTopic, version: string): string {
  if (topic !== 'main') return `${TOPICS[topic]}\n`;
  return `seawall ${version}: retry budgets, deadlines and load shedding for Node.js,
and a simulator that tests them

Usage: seawall <command> [options]

Commands:
  simulate <file.yaml | built-in>  run a scenario and report
                                   (seawall simulate --help)
  lab [scenario]                   replay it on real processes and PostgreSQL,
                                   beside the simulator (seawall lab --help)
  mesh import <mesh.yaml>          Envoy / Istio settings -> a Seawall scenario
                                   (seawall mesh import --help)
  mesh export <scenario>           a variant's policy -> Envoy and Istio config
                                   (seawall mesh export --help)
  lint <file>                      retry amplification and risky settings
                                   (seawall lint --help)

Options:
  -h, --help      show this help
  -v, --version   print the version

${SIMULATE_HELP}
`;
}
