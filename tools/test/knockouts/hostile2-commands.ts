// Knock-outs of issue #25 items 5 and 10: every command ends (bounded file reads, --db timeouts), Ctrl-C in initdb.

import type { Knockout } from './knockout.js';

// In-process tests that fail at once with the reader knocked out (the CLI tests wait out a 25 s watchdog).
const LOAD_BOUNDED = ['src/sim/scenario/load-bounded.test.ts'];
const READ_FILE = ['src/sim/scenario/read-file.test.ts'];
const DB_CHECK = ['src/lab/postgres/db-check.test.ts'];
const DB_SERVICES = ['src/lab/postgres/db-services.test.ts'];
const INTERRUPT = ['src/lab/postgres/cluster-interrupt.test.ts'];

export const HOSTILE2_COMMAND_KNOCKOUTS: Knockout[] = [
  {
    id: 'scenario-read-bounded',
    mechanism: 'simulate reads a scenario file only if it is a regular file of at most 4 MB',
    mark: 'scenario-read-bounded',
    find: "text = readBoundedText(file, MAX_SCENARIO_BYTES, 'a scenario');",
    replace: "text = readFileSync(file, 'utf8');",
    tests: LOAD_BOUNDED,
  },
  {
    id: 'scenario-extends-read-bounded',
    mechanism: "a scenario's extends: parent is read by the same bounded reader",
    mark: 'scenario-extends-read-bounded',
    find: "return readBoundedText(file, MAX_SCENARIO_BYTES, 'a scenario');",
    replace: "return readFileSync(file, 'utf8');",
    tests: LOAD_BOUNDED,
  },
  {
    id: 'read-bounded-regular-file',
    mechanism: 'the bounded reader refuses a FIFO or a device by its type, before opening it',
    mark: 'read-bounded-regular-file',
    find: 'if (!stat.isFile())',
    replace: 'if (false)',
    tests: READ_FILE,
  },
  {
    id: 'lab-db-checked-first',
    mechanism: 'lab --db is checked (connect, SELECT 1, 5 s) before any process starts: one line naming the URL',
    mark: 'lab-db-checked-first',
    find: 'if (options.db !== undefined) await checkDatabase(options.db);',
    replace: 'void checkDatabase;',
    tests: ['test/cli/lab-db.test.ts'],
  },
  {
    id: 'lab-db-connect-timeout',
    mechanism: 'the --db check has a connect and query timeout',
    mark: 'lab-db-connect-timeout',
    find: 'client = new pg.Client({ connectionString: url, connectionTimeoutMillis: timeoutMs, query_timeout: timeoutMs });',
    replace: 'client = new pg.Client({ connectionString: url });',
    tests: DB_CHECK,
  },
  {
    id: 'lab-pool-connect-timeout',
    mechanism: "a lab service's pool gives up connecting after 5 s with the same line",
    mark: 'lab-pool-connect-timeout',
    find: 'connectionTimeoutMillis: DB_CONNECT_TIMEOUT_MS,',
    replace: 'connectionTimeoutMillis: 0,',
    tests: DB_SERVICES,
  },
  {
    id: 'lab-start-timeout-kills',
    mechanism: 'a service process that does not answer init in time is killed, not left holding the lab open',
    mark: 'lab-start-timeout-kills',
    find: 'p.kill();',
    replace: 'void 0;',
    tests: DB_SERVICES,
  },
  {
    id: 'lab-initdb-killed-on-signal',
    mechanism: "Ctrl-C during initdb ends initdb's process group before the temp dir is removed",
    mark: 'lab-initdb-killed-on-signal',
    find: 'if (pgid !== null) killGroupSync(pgid);',
    replace: 'void pgid;',
    tests: INTERRUPT,
  },
  {
    id: 'lab-cluster-hooks-before-dir',
    mechanism: "the exit and signal hooks are installed before a cluster's temp dir is made",
    mark: 'lab-cluster-hooks-before-dir',
    find: 'install();',
    replace: 'void 0;',
    tests: INTERRUPT,
  },
];
