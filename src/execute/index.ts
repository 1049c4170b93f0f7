// execute's public surface (work that is not an HTTP call, on the shared attempt loop): re-exports only. The package
// root exports it beside the HTTP drivers; http/ never re-exports it (execute sits on the same floor).

export {
  type Attempted,
  defaultClassify,
  type ExecuteClassifier,
  type ExecuteVerdict,
} from './classify.js';
export { type AttemptContext, type AttemptFn, createExecutor, type Executor, execute } from './executor.js';
export type { ExecuteOptions, ExecutorOptions } from './options.js';
