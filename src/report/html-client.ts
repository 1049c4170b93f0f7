// The report page's browser script (plain ES2020, run after the inlined Chart.js): draws the charts from the embedded data.

/**
 * Reads `#seawall-data` (see ChartData in html.ts) and draws one line chart per spec, one dataset per variant,
 * with the trigger interval shaded. Clicking a legend entry hides that variant in every chart; the seed
 * selector (present with more than one seed) redraws every chart for that seed.
 */
export const REPORT_CLIENT_SCRIPT = `
(function () {
  'use strict';
  var data = JSON.parse(document.getElementById('seawall-data').textContent);
  var status = document.getElementById('chart-status');
  if (typeof Chart === 'undefined') { status.textContent = 'Chart.js did not load: charts are unavailable.'; return; }
  var PALETTE = ['#1f77b4', '#d62728', '#2ca02c', '#ff7f0e', '#9467bd', '#8c564b', '#e377c2', '#17becf',
    '#7f7f7f', '#bcbd22', '#393b79', '#ad494a', '#637939', '#8c6d31'];
  var DASHES = [[], [6, 3], [2, 2], [8, 3, 2, 3]];
  var hidden = {};
  var logMode = false;
  var seed = data.seeds[0];
  var charts = [];

  var triggerShade = {
    id: 'seawallTrigger',
    beforeDatasetsDraw: function (chart) {
      var x = chart.scales.x, area = chart.chartArea, ctx = chart.ctx;
      data.triggers.forEach(function (span) {
        var left = Math.max(area.left, x.getPixelForValue(span[0]));
        var right = Math.min(area.right, x.getPixelForValue(span[1]));
        if (!(right > left)) return;
        ctx.save();
        ctx.fillStyle = 'rgba(214, 39, 40, 0.09)';
        ctx.fillRect(left, area.top, right - left, area.bottom - area.top);
        ctx.fillStyle = 'rgba(150, 30, 30, 0.85)';
        ctx.font = '11px system-ui, sans-serif';
        ctx.textBaseline = 'bottom';
        ctx.fillText('trigger ' + span[0] + '-' + span[1] + ' s', left + 2, area.top - 3);
        ctx.restore();
      });
    }
  };

  function styleOf(index) {
    return { color: PALETTE[index % PALETTE.length], dash: DASHES[Math.floor(index / PALETTE.length) % DASHES.length] };
  }

  function seriesFor(variant, service) {
    for (var i = 0; i < data.series.length; i++) {
      var s = data.series[i];
      if (s.seed === seed && s.variant === variant && s.service === service) return s;
    }
    return null;
  }

  function datasetsFor(spec) {
    var out = [];
    data.variants.forEach(function (variant, index) {
      var s = seriesFor(variant, spec.service);
      if (!s) return;
      var values = s[spec.field];
      var points = [];
      // A bin's value is drawn at the bin's middle: bin [t, t + binS) -> x = t + binS / 2.
      for (var i = 0; i < s.t.length; i++) {
        var v = values[i];
        var y = v === null || (logMode && spec.field !== 'successRate' && v <= 0) ? null : v * spec.scale;
        points.push({ x: s.t[i] + data.binS / 2, y: y });
      }
      var style = styleOf(index);
      out.push({
        label: variant, data: points, borderColor: style.color, backgroundColor: style.color,
        borderDash: style.dash, borderWidth: 1.6, pointRadius: 0, pointHoverRadius: 3, tension: 0,
        spanGaps: false, hidden: hidden[variant] === true
      });
    });
    return out;
  }

  function toggleVariant(variant) {
    hidden[variant] = !hidden[variant];
    charts.forEach(function (entry) {
      entry.chart.data.datasets.forEach(function (d) { d.hidden = hidden[d.label] === true; });
      entry.chart.update('none');
    });
  }

  data.charts.forEach(function (spec) {
    var canvas = document.getElementById(spec.canvasId);
    if (!canvas) return;
    var chart = new Chart(canvas, {
      type: 'line',
      data: { datasets: datasetsFor(spec) },
      plugins: [triggerShade],
      options: {
        animation: false, responsive: true, layout: { padding: { top: 16 } }, maintainAspectRatio: false, parsing: false, normalized: true,
        interaction: { mode: 'nearest', axis: 'x', intersect: false },
        scales: {
          x: { type: 'linear', min: 0, max: data.durationS, title: { display: true, text: 'simulated time (s)' },
               ticks: { stepSize: data.tickStepS } },
          y: { type: 'linear', beginAtZero: true, suggestedMax: spec.suggestedMax,
               max: spec.max === null ? undefined : spec.max, title: { display: true, text: spec.yLabel } }
        },
        plugins: {
          legend: { position: 'bottom', labels: { boxWidth: 14, boxHeight: 2, font: { size: 11 } },
                    onClick: function (_e, item) { toggleVariant(item.text); } },
          tooltip: { callbacks: { label: function (ctx) {
            var y = ctx.parsed.y;
            return ctx.dataset.label + ': ' + (y === null ? 'n/a' : (Math.round(y * 10) / 10) + spec.unit);
          } } }
        }
      }
    });
    charts.push({ spec: spec, chart: chart });
  });

  // Log scale for counts: zero cannot be drawn, so those bins become gaps; the axis spans 1-2-5 steps
  // strictly around the data so a flat line never sits on the chart's edge.
  function niceStep(value, up) {
    var p = Math.pow(10, Math.floor(Math.log10(value)));
    var steps = [1, 2, 5, 10];
    if (up) { for (var i = 0; i < steps.length; i++) if (steps[i] * p > value) return steps[i] * p; return 20 * p; }
    for (var j = steps.length - 1; j >= 0; j--) if (steps[j] * p <= value) return steps[j] * p;
    return p;
  }
  function logLimits(scale) {
    if (scale.type !== 'logarithmic') return;
    var min = scale.min > 0 ? scale.min : 1, max = scale.max > min ? scale.max : min;
    scale.min = niceStep(min, false);
    scale.max = niceStep(max, true);
  }
  // Labels at 1, 2 and 5 × 10^n; only at 10^n when the axis spans more than three decades ("this" is the scale).
  function logTick(value) {
    var mantissa = value / Math.pow(10, Math.floor(Math.log10(value) + 1e-9));
    var labelled = Math.log10(this.max / Math.max(this.min, 1e-9)) > 3 ? [1] : [1, 2, 5];
    return labelled.some(function (m) { return Math.abs(mantissa - m) < 1e-6; }) ? value.toLocaleString('en-US') : '';
  }
  var logScale = document.getElementById('log-scale');
  if (logScale) logScale.addEventListener('change', function () {
    logMode = logScale.checked;
    charts.forEach(function (entry) {
      if (entry.spec.field === 'successRate') return;
      entry.chart.data.datasets = datasetsFor(entry.spec);
      var y = entry.chart.options.scales.y;
      y.type = logScale.checked ? 'logarithmic' : 'linear';
      y.beginAtZero = !logScale.checked;
      y.afterDataLimits = logScale.checked ? logLimits : undefined;
      y.ticks = logScale.checked ? { callback: logTick, autoSkip: false } : {};
      entry.chart.update('none');
    });
    refreshVariantCharts();
  });

  // One small chart per variant: success (left axis, %) and arrivals at the focus service (right axis, shared scale).
  var SUCCESS_COLOR = '#17753a', ARRIVALS_COLOR = '#1f77b4';
  function focusMax() {
    var max = 1;
    data.series.forEach(function (s) {
      if (s.seed !== seed || s.service !== data.focusService) return;
      s.arrivals.forEach(function (v) { if (v > max) max = v; });
    });
    // Round up to a readable axis end: 11,678 -> 12,000.
    var p = Math.pow(10, Math.floor(Math.log10(max)));
    var nice = [1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10];
    for (var i = 0; i < nice.length; i++) if (nice[i] * p >= max) return nice[i] * p;
    return 10 * p;
  }
  function variantDatasets(variant) {
    var out = [];
    var entry = data.entryService === null ? null : seriesFor(variant, data.entryService);
    var focus = data.focusService === null ? null : seriesFor(variant, data.focusService);
    function points(s, values, scale) {
      return s.t.map(function (t, i) {
        var v = values[i];
        return { x: t + data.binS / 2, y: v === null || (logMode && scale === 1 && v <= 0) ? null : v * scale };
      });
    }
    if (entry) out.push({ label: 'success %', yAxisID: 'y', data: points(entry, entry.successRate, 100),
      borderColor: SUCCESS_COLOR, backgroundColor: SUCCESS_COLOR, borderWidth: 1.8, pointRadius: 0, tension: 0 });
    if (focus) out.push({ label: 'arrivals/s at ' + data.focusService, yAxisID: 'y1', data: points(focus, focus.arrivals, 1),
      borderColor: ARRIVALS_COLOR, backgroundColor: ARRIVALS_COLOR, borderWidth: 1.4, pointRadius: 0, tension: 0 });
    return out;
  }
  var variantCharts = [];
  data.variantCharts.forEach(function (spec) {
    var canvas = document.getElementById(spec.canvasId);
    if (!canvas) return;
    variantCharts.push(new Chart(canvas, {
      type: 'line',
      data: { datasets: variantDatasets(spec.variant) },
      plugins: [triggerShade],
      options: {
        animation: false, responsive: true, maintainAspectRatio: false, parsing: false, normalized: true,
        layout: { padding: { top: 16 } },
        interaction: { mode: 'nearest', axis: 'x', intersect: false },
        scales: {
          x: { type: 'linear', min: 0, max: data.durationS, ticks: { stepSize: data.tickStepS * 2, maxRotation: 0 } },
          y: { type: 'linear', min: 0, max: 100, position: 'left', title: { display: true, text: 'success %' },
               ticks: { color: SUCCESS_COLOR } },
          y1: { type: 'linear', min: 0, max: focusMax(), position: 'right', grid: { drawOnChartArea: false },
                title: { display: true, text: 'arrivals/s' }, ticks: { color: ARRIVALS_COLOR } }
        },
        plugins: { legend: { display: false } }
      }
    }));
  });
  function refreshVariantCharts() {
    var max = focusMax();
    variantCharts.forEach(function (chart, i) {
      chart.data.datasets = variantDatasets(data.variantCharts[i].variant);
      var y1 = chart.options.scales.y1;
      y1.type = logMode ? 'logarithmic' : 'linear';
      y1.min = logMode ? undefined : 0;
      y1.max = logMode ? niceStep(max, true) : max;
      y1.ticks = logMode ? { callback: logTick, autoSkip: false, color: ARRIVALS_COLOR } : { color: ARRIVALS_COLOR };
      chart.update('none');
    });
  }

  var select = document.getElementById('seed-select');
  if (select) select.addEventListener('change', function () {
    seed = Number(select.value);
    charts.forEach(function (entry) { entry.chart.data.datasets = datasetsFor(entry.spec); entry.chart.update('none'); });
    refreshVariantCharts();
  });
  status.textContent = '';
  document.documentElement.setAttribute('data-charts', String(charts.length + variantCharts.length));
})();
`;
