// Knock-outs of issue #26's report layout: topology labels clear of each other, the boxes and the arrows; the phone.

import type { Knockout } from './knockout.js';

export const REPORT2_KNOCKOUTS: Knockout[] = [
  {
    id: 'report-label-no-overlap',
    mechanism: "the topology's call labels are stacked apart in their column, never drawn over one another",
    mark: 'report-label-no-overlap',
    find: 'const tops = stackBoxes(wanted, heights, LABEL_GAP, top, bottom);',
    replace: 'const tops = wanted;',
    tests: ['src/report/topology-layout.test.ts'],
  },
  {
    id: 'report-topology-around',
    mechanism:
      'a call that does not go one column right (same column, back, past one) is drawn around, through a lane below the picture, not across labels and boxes',
    mark: 'report-topology-around',
    find: 'if (!p.around) {',
    replace: 'if (true) {',
    tests: ['src/report/topology-layout.test.ts'],
  },
  {
    id: 'report-phone-layout',
    mechanism:
      'on a phone the verdict table is one card per variant, whole on the first screen, and nothing scrolls sideways',
    mark: 'report-phone-layout',
    find: "export const PHONE_MEDIA = '(max-width: 640px)';",
    replace: "export const PHONE_MEDIA = '(max-width: 1px)';",
    tests: ['src/report/report-layout.browser.test.ts'],
  },
  {
    id: 'report-topology-min-scale',
    mechanism:
      'on a narrow screen the topology scrolls sideways in its own box instead of shrinking its text below readable',
    mark: 'report-topology-min-scale',
    find: 'const minWidth = Math.ceil(width * MIN_TOPOLOGY_SCALE);',
    replace: 'const minWidth = 0;',
    tests: ['src/report/report-layout.browser.test.ts'],
  },
  {
    id: 'report-label-text-fits',
    mechanism:
      "a label box is as wide as its longest line, so a call's policy text stays inside its box and off the arrows",
    mark: 'report-label-text-fits',
    find: 'labelW.set(g, Math.max(MIN_LABEL_W, ...lines.map((l) => textWidth(l, CHAR_W) + 16)));',
    replace: 'labelW.set(g, MIN_LABEL_W);',
    tests: ['src/report/report-layout.browser.test.ts'],
  },
];
