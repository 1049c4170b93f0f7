// The simulator's latency histogram is the policy's one histogram (src/policy/latency-histogram.ts), shared with HTTP.

export { LatencyHistogram } from '../../policy/latency-histogram.js';
