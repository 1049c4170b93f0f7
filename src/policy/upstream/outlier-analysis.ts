// Outlier detection's analysis at a sweep (Envoy's success-rate and failure-percentage passes): which hosts are outliers.

import type { ResolvedOutlierDetectionConfig } from './outlier-config.js';
import type { EjectionReason, SweepReport } from './outlier-types.js';

/** Success rates (percent, 0-100) closer than this to the success-rate threshold are ties (floating-point noise). */
const RATE_ROUNDING = 1e-9;

/** What the analysis reads of a host: the interval just closed. */
export interface AnalysedHost {
  readonly ejected: boolean;
  readonly lastRequests: number;
  readonly lastSuccesses: number;
}

/**
 * Runs both passes over `snapshot` (hosts in least-recently-seen order; `n` hosts tracked), writes the success-rate
 * average and threshold into `report`, and calls `onOutlier` for each host found, in Envoy's order: every success-rate
 * outlier first, then the failure-percentage ones not ejected meanwhile (`onOutlier` may eject a host).
 */
export function findOutliers<H extends AnalysedHost>(
  snapshot: readonly H[],
  n: number,
  cfg: ResolvedOutlierDetectionConfig,
  report: SweepReport,
  onOutlier: (host: H, reason: EjectionReason) => void,
): void {
  // @eq outlier-cfg-successrateminimumhosts-cfg-failurepercentageminimumhosts
  if (n < cfg.successRateMinimumHosts && n < cfg.failurePercentageMinimumHosts) return;
  const srHosts: H[] = [];
  const srRates: number[] = [];
  const fpHosts: H[] = [];
  const fpRates: number[] = [];
  let sum = 0;
  for (const h of snapshot) {
    if (h.ejected || h.lastRequests === 0) continue;
    const rate = (h.lastSuccesses * 100) / h.lastRequests;
    if (h.lastRequests >= cfg.successRateRequestVolume) {
      srHosts.push(h);
      srRates.push(rate);
      sum += rate;
    }
    if (h.lastRequests >= cfg.failurePercentageRequestVolume) {
      fpHosts.push(h);
      fpRates.push(rate);
    }
  }
  if (srHosts.length > 0 && srHosts.length >= cfg.successRateMinimumHosts) {
    // Population mean and standard deviation, as Envoy's successRateEjectionThreshold computes them.
    const mean = sum / srHosts.length;
    let variance = 0;
    for (const rate of srRates) variance += (rate - mean) * (rate - mean);
    variance /= srHosts.length;
    const threshold = mean - (cfg.successRateStdevFactor / 1000) * Math.sqrt(variance);
    report.successRateAverage = mean;
    report.successRateEjectionThreshold = threshold;
    // Below the threshold by more than rounding: hosts with the same rate must never eject each other, but a mean
    // of equal doubles can round one unit above them (with a factor below 1000 the threshold then passes them).
    const cut = threshold - RATE_ROUNDING;
    // @eq outlier-srhosts-length
    for (let i = 0; i < srHosts.length; i++) {
      // @eq outlier-srrates-number-cut
      if ((srRates[i] as number) < cut)
        // @ko outlier-success-rate
        onOutlier(srHosts[i] as H, 'success-rate');
    }
  }
  if (fpHosts.length >= cfg.failurePercentageMinimumHosts) {
    for (let i = 0; i < fpHosts.length; i++) {
      const h = fpHosts[i] as H;
      // Envoy would eject a host the success-rate pass just ejected a second time; Seawall skips it.
      if (h.ejected) continue;
      if (100 - (fpRates[i] as number) >= cfg.failurePercentageThreshold) {
        onOutlier(h, 'failure-percentage');
      }
    }
  }
}
