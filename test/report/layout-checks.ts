// Test helper: geometric checks of report.html run in the page — topology labels against each other, the boxes and
// the arrows; and the page on a phone (nothing wider than the screen, the verdict whole on the first screen).
import type { Page } from 'playwright-core';

// Runs in the page (plain JS: the project's TypeScript has no DOM types). For every shown topology picture, every
// collision as text: a label's text outside its label box, two label boxes overlapping, a label box over a service
// box, a service's text outside its box, a point of an arrow (every 2 px along it) inside a label or service box.
const TOPOLOGY_COLLISIONS = `(() => {
  const box = (el) => { const r = el.getBoundingClientRect(); return { l: r.left, t: r.top, r: r.right, b: r.bottom }; };
  const union = (els) => els.map(box).reduce((a, b) => ({ l: Math.min(a.l, b.l), t: Math.min(a.t, b.t), r: Math.max(a.r, b.r), b: Math.max(a.b, b.b) }));
  const overlap = (a, b) => a.l < b.r - 0.5 && b.l < a.r - 0.5 && a.t < b.b - 0.5 && b.t < a.b - 0.5;
  const within = (a, b) => a.l >= b.l - 1 && a.r <= b.r + 1 && a.t >= b.t - 1 && a.b <= b.b + 1;
  const inside = (p, b) => p.x > b.l + 1 && p.x < b.r - 1 && p.y > b.t + 1 && p.y < b.b - 1;
  const problems = [];
  const svgs = [...document.querySelectorAll('svg.topology')].filter((s) => s.getBoundingClientRect().width > 0);
  for (const svg of svgs) {
    const labels = [...svg.querySelectorAll('g.call')].map((g) => ({
      name: 'label of ' + g.getAttribute('data-call'),
      box: box(g.querySelector('g.edge-box rect')),
      text: union([...g.querySelectorAll('g.edge-box text')]),
    }));
    const services = [...svg.querySelectorAll('g.service')].map((g) => ({
      name: g.getAttribute('data-service'),
      box: box(g.querySelector('rect')),
      text: union([...g.querySelectorAll('text')]),
    }));
    services.push({ name: 'users', box: box(svg.querySelector('rect.users')), text: null });
    const all = [...labels, ...services];
    for (const item of all) {
      if (item.text && !within(item.text, item.box)) problems.push(svg.id + ': the text of ' + item.name + ' leaves its box');
    }
    for (let i = 0; i < all.length; i++) for (let j = i + 1; j < all.length; j++) {
      if (overlap(all[i].box, all[j].box)) problems.push(svg.id + ': ' + all[i].name + ' overlaps ' + all[j].name);
    }
    for (const path of svg.querySelectorAll('path.edge')) {
      const call = path.closest('g.call').getAttribute('data-call');
      const m = path.getScreenCTM();
      const length = path.getTotalLength();
      const points = [];
      for (let l = 0; l <= length; l += 2) {
        const p = path.getPointAtLength(l);
        points.push(new DOMPoint(p.x, p.y).matrixTransform(m));
      }
      for (const item of all) {
        if (points.some((p) => inside(p, item.box))) problems.push(svg.id + ': the arrow of ' + call + ' crosses ' + item.name);
      }
    }
  }
  return { pictures: svgs.length, labels: svgs.reduce((n, s) => n + s.querySelectorAll('g.call').length, 0), problems };
})()`;

export interface TopologyCollisions {
  pictures: number;
  labels: number;
  problems: string[];
}

export async function topologyCollisions(page: Page): Promise<TopologyCollisions> {
  return (await page.evaluate(TOPOLOGY_COLLISIONS)) as TopologyCollisions;
}

// Runs in the page at the phone's size: how wide the page is, and per verdict cell whether its text is whole and on
// the screen (not cut by the screen's edge, by its cell or by a scrolling box around it); the first row's on the
// first screen. Every element wider than the screen, but for the topology pictures and the table of all figures
// (each in a box that scrolls sideways on its own). And how much the shown topology pictures are scaled down (their
// text is 12 px at 1).
const PHONE_CHECK = `(() => {
  const screenW = window.innerWidth, screenH = window.innerHeight;
  const cells = [...document.querySelectorAll('table.verdict-table tr.variant-row td.verdict')].map((td) => {
    const r = td.getBoundingClientRect();
    let clipped = td.scrollWidth > td.clientWidth + 1 || r.left < 0 || r.right > screenW;
    for (let el = td.parentElement; el && el !== document.body; el = el.parentElement) {
      const style = getComputedStyle(el);
      if (style.overflowX !== 'visible') {
        const c = el.getBoundingClientRect();
        if (r.left < c.left - 1 || r.right > c.right + 1) clipped = true;
      }
    }
    return { text: td.textContent, clipped, bottom: r.bottom + window.scrollY };
  });
  const scales = [...document.querySelectorAll('svg.topology')].filter((s) => s.getBoundingClientRect().width > 0)
    .map((s) => s.getBoundingClientRect().width / s.viewBox.baseVal.width);
  const wide = [...document.querySelectorAll('body *')].filter((el) => {
    const r = el.getBoundingClientRect();
    if (r.width === 0 || r.right <= screenW + 1) return false;
    // Only the topology pictures and the table of all figures scroll sideways, in boxes of their own.
    const own = el.closest('.topology-scroll') || el.closest('table.summary');
    return !own || own.parentElement.getBoundingClientRect().right > screenW + 1;
  }).map((el) => el.tagName.toLowerCase() + (el.className && typeof el.className === 'string' ? '.' + el.className : ''));
  return { screenW, screenH, scrollWidth: document.documentElement.scrollWidth, cells, scales, wide: wide.slice(0, 10) };
})()`;

export interface PhoneCheck {
  screenW: number;
  screenH: number;
  scrollWidth: number;
  cells: { text: string; clipped: boolean; bottom: number }[];
  scales: number[];
  wide: string[];
}

export async function phoneCheck(page: Page): Promise<PhoneCheck> {
  return (await page.evaluate(PHONE_CHECK)) as PhoneCheck;
}
