// Knock-outs of issue #26's package hygiene: what the package ships, its types under node10, durations typed by unit.

import type { Knockout } from './knockout.js';

export const PACKAGE_KNOCKOUTS: Knockout[] = [
  {
    id: 'package-files-examples',
    mechanism: 'the package ships examples/, the files the docs and the help of the mesh command point a user at',
    mark: 'package-files-examples',
    find: '"files": [\n    "examples",',
    replace: '"files": [',
    tests: ['test/package-files.test.ts'],
  },
  {
    id: 'package-types-versions',
    mechanism: "seawall/policy and seawall/sim have types under moduleResolution node10 (package.json's typesVersions)",
    mark: 'package-types-versions',
    find: '"typesVersions": {',
    replace: '"typesVersions-knocked-out": {',
    tests: ['test/package-types.test.ts'],
  },
  {
    id: 'duration-unit-type',
    mechanism: "a duration string with a misspelt unit ('800sm') does not compile",
    mark: 'duration-unit-type',
    // The template literal types stay, beside plain string: any string compiles again.
    find: 'export type Duration = number |',
    replace: 'export type Duration = number | string |',
    tests: ['src/policy/core/duration.types.test.ts'],
  },
];
