// The simulator's latency histogram is the policy's one histogram (src/policy/core/latency-histogram.ts), shared with HTTP.

export { LatencyHistogram } from '../../policy/core/latency-histogram.js';
