// Minimal types for autocannon (it ships none): only what the overload bench uses.
declare module 'autocannon' {
  interface Options {
    url: string;
    connections?: number;
    duration?: number;
    overallRate?: number;
    timeout?: number;
    headers?: Record<string, string>;
  }
  interface Result {
    requests: { average: number; sent: number; total: number };
    timeouts: number;
    errors: number;
    non2xx: number;
    [key: string]: unknown;
  }
  interface Instance extends PromiseLike<Result> {
    on(
      event: 'response',
      listener: (client: unknown, statusCode: number, resBytes: number, responseTimeMs: number) => void,
    ): this;
  }
  function autocannon(options: Options): Instance;
  export default autocannon;
}
