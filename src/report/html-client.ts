// The report page's browser script (plain ES2020, run after the inlined Chart.js): draws the charts from the embedded data.

/**
 * Reads `#seawall-data` (ChartData in chart-data.ts). Per group, four charts (success, load, amplification and
 * wasted work, with one y scale per metric across groups so groups compare at a glance); below, load per service
 * for the base and the compared variant. Chips hide or show a variant, group boxes hide a group, the variant select
 * (or a click on a verdict row) picks the compared variant, the seed select redraws everything for that seed.
 */
export const REPORT_CLIENT_SCRIPT = `
(function () {
  'use strict';
  var data = JSON.parse(document.getElementById('seawall-data').textContent);
  var status = document.getElementById('chart-status');
  var seed = data.seeds[0];
  var selected = data.selectedVariant;
  var hiddenInGroups = {};
  var extraDetail = {};
  var removedDetail = {};
  var logMode = false;

  function each(selector, fn) { Array.prototype.forEach.call(document.querySelectorAll(selector), fn); }

  // The compared variant: topology panel, selected verdict row, detail charts. Works without Chart.js too.
  function showSelected() {
    each('.topology-panel', function (panel) { panel.hidden = panel.getAttribute('data-variant') !== selected; });
    each('tr.variant-row', function (row) { row.classList.toggle('selected', row.getAttribute('data-variant') === selected); });
    var select = document.getElementById('variant-select');
    if (select && select.value !== selected) select.value = selected;
  }
  var variantSelect = document.getElementById('variant-select');
  if (variantSelect) variantSelect.addEventListener('change', function () { select(variantSelect.value); });
  each('tr.variant-row td.name', function (cell) {
    cell.addEventListener('click', function () { select(cell.parentNode.getAttribute('data-variant')); });
  });
  function select(variant) {
    selected = variant;
    delete removedDetail[variant];
    showSelected();
    refreshDetail();
  }
  showSelected();

  if (typeof Chart === 'undefined') { status.textContent = 'Chart.js did not load: charts are unavailable.'; return; }

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
        ctx.restore();
      });
    }
  };

  function seriesFor(variant, service) {
    for (var i = 0; i < data.series.length; i++) {
      var s = data.series[i];
      if (s.seed === seed && s.variant === variant && s.service === service) return s;
    }
    return null;
  }
  // A bin's value is drawn at the bin's middle: bin [t, t + binS) -> x = t + binS / 2.
  function points(s, value) {
    var out = [];
    for (var i = 0; i < s.t.length; i++) out.push({ x: s.t[i] + data.binS / 2, y: value(i) });
    return out;
  }
  // The metric of one variant as points; null when its series is missing.
  function metricPoints(metric, variant) {
    var entry = data.entryService === null ? null : seriesFor(variant, data.entryService);
    var focus = data.focusService === null ? null : seriesFor(variant, data.focusService);
    if (metric === 'success') return entry && points(entry, function (i) { var v = entry.successRate[i]; return v === null ? null : v * 100; });
    if (!focus) return null;
    if (metric === 'load') return points(focus, function (i) { return focus.arrivals[i]; });
    if (metric === 'wasted') return points(focus, function (i) { return focus.wasted[i] / data.binS; });
    if (!entry) return null;
    return points(focus, function (i) { var users = entry.arrivals[i]; return users > 0 ? focus.arrivals[i] / users : null; });
  }
  function dataset(variant, pts, hidden) {
    var style = data.styles[variant] || { color: '#888', dash: [] };
    return { label: variant, data: pts, borderColor: style.color, backgroundColor: style.color, borderDash: style.dash,
      borderWidth: 1.7, pointRadius: 0, pointHoverRadius: 3, tension: 0, spanGaps: false, hidden: hidden };
  }
  // Round up to a readable axis end: 11,678 -> 12,000.
  function niceMax(max) {
    if (!(max > 0)) return 1;
    var p = Math.pow(10, Math.floor(Math.log10(max)));
    var nice = [1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10];
    for (var i = 0; i < nice.length; i++) if (nice[i] * p >= max) return nice[i] * p;
    return 10 * p;
  }
  function metricMax(metric) {
    if (metric === 'success') return 100;
    var max = 0;
    data.variants.forEach(function (v) {
      (metricPoints(metric, v) || []).forEach(function (p) { if (p.y !== null && p.y > max) max = p.y; });
    });
    return niceMax(max);
  }
  function lineOptions(yTitle, yMax, legend) {
    return {
      animation: false, responsive: true, maintainAspectRatio: false, parsing: false, normalized: true,
      interaction: { mode: 'nearest', axis: 'x', intersect: false },
      scales: {
        x: { type: 'linear', min: 0, max: data.durationS, ticks: { stepSize: data.tickStepS * (legend ? 1 : 2), maxRotation: 0 },
             title: { display: legend, text: 'simulated time (s)' } },
        y: { type: 'linear', min: 0, max: yMax, title: { display: !!yTitle, text: yTitle } }
      },
      plugins: { legend: { display: false }, tooltip: { callbacks: { label: function (ctx) {
        var y = ctx.parsed.y;
        return ctx.dataset.label + ': ' + (y === null ? 'n/a' : (Math.round(y * 100) / 100).toLocaleString('en-US'));
      } } } }
    };
  }

  var groupCharts = [];
  function groupDatasets(entry) {
    var group = data.groups[entry.index];
    // @ko report-group-charts
    return group.variants.map(function (v) { return dataset(v, metricPoints(entry.metric, v) || [], hiddenInGroups[v] === true); });
  }
  data.groupCharts.forEach(function (g, index) {
    g.charts.forEach(function (c) {
      var canvas = document.getElementById(c.canvasId);
      if (!canvas) return;
      var entry = { index: index, metric: c.metric, chart: null };
      entry.chart = new Chart(canvas, { type: 'line', data: { datasets: groupDatasets(entry) }, plugins: [triggerShade],
        options: lineOptions('', metricMax(c.metric), false) });
      groupCharts.push(entry);
    });
  });
  function refreshGroups() {
    var maxima = {};
    groupCharts.forEach(function (entry) {
      if (!(entry.metric in maxima)) maxima[entry.metric] = metricMax(entry.metric);
      entry.chart.data.datasets = groupDatasets(entry);
      entry.chart.options.scales.y.max = maxima[entry.metric];
      entry.chart.update('none');
    });
  }

  // Detail charts: the base and the compared variant, plus any added with the chips (minus any removed).
  function detailShown(variant) {
    if (removedDetail[variant]) return false;
    return variant === data.baseVariant || variant === selected || extraDetail[variant] === true;
  }
  var detailCharts = [];
  function detailDatasets(spec) {
    var out = [];
    data.variants.forEach(function (v) {
      var s = seriesFor(v, spec.service);
      if (!s) return;
      var pts = points(s, function (i) { var y = s[spec.field][i]; return logMode && y <= 0 ? null : y; });
      out.push(dataset(v, pts, !detailShown(v)));
    });
    return out;
  }
  // Log scale: zero cannot be drawn, so those bins become gaps; labels only at 1, 2 and 5 x 10^n.
  function logTick(value) {
    var mantissa = value / Math.pow(10, Math.floor(Math.log10(value) + 1e-9));
    return [1, 2, 5].some(function (m) { return Math.abs(mantissa - m) < 1e-6; }) ? value.toLocaleString('en-US') : '';
  }
  data.charts.forEach(function (spec) {
    var canvas = document.getElementById(spec.canvasId);
    if (!canvas) return;
    var options = lineOptions(spec.yLabel, undefined, true);
    options.scales.y.beginAtZero = true;
    options.plugins.legend = { display: true, position: 'bottom', labels: { boxWidth: 14, boxHeight: 2, font: { size: 11 },
      filter: function (item) { return !item.hidden; } } };
    var chart = new Chart(canvas, { type: 'line', data: { datasets: detailDatasets(spec) }, plugins: [triggerShade], options: options });
    detailCharts.push({ spec: spec, chart: chart });
  });
  function refreshDetail() {
    if (!detailCharts) return;
    detailCharts.forEach(function (entry) {
      entry.chart.data.datasets = detailDatasets(entry.spec);
      var y = entry.chart.options.scales.y;
      y.type = logMode ? 'logarithmic' : 'linear';
      y.min = logMode ? undefined : 0;
      y.ticks = logMode ? { callback: logTick, autoSkip: false } : {};
      entry.chart.update('none');
    });
    each('#detail-chips .chip', function (chip) { chip.setAttribute('aria-pressed', String(detailShown(chip.getAttribute('data-variant')))); });
  }

  each('.chip', function (chip) {
    chip.addEventListener('click', function () {
      var v = chip.getAttribute('data-variant');
      if (chip.getAttribute('data-scope') === 'group') {
        hiddenInGroups[v] = !hiddenInGroups[v];
        chip.setAttribute('aria-pressed', String(!hiddenInGroups[v]));
        refreshGroups();
      } else {
        if (detailShown(v)) { removedDetail[v] = true; delete extraDetail[v]; }
        else { delete removedDetail[v]; extraDetail[v] = true; }
        refreshDetail();
      }
    });
  });
  each('.group-toggle', function (box) {
    box.addEventListener('change', function () {
      var name = box.getAttribute('data-group');
      each('.group-block', function (block) { if (block.getAttribute('data-group') === name) block.hidden = !box.checked; });
    });
  });
  var logScale = document.getElementById('log-scale');
  if (logScale) logScale.addEventListener('change', function () { logMode = logScale.checked; refreshDetail(); });
  var seedSelect = document.getElementById('seed-select');
  if (seedSelect) seedSelect.addEventListener('change', function () {
    seed = Number(seedSelect.value);
    refreshGroups();
    refreshDetail();
  });
  refreshDetail();
  status.textContent = '';
  document.documentElement.setAttribute('data-charts', String(groupCharts.length + detailCharts.length));
})();
`;
