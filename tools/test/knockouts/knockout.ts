// The shape of one knock-out (its own file, so the lists and the table that gathers them never import each other).

/**
 * One mechanism switched off: `find` becomes `replace` at the line `mark` guards (tools/test/knockouts/marks.ts): the
 * line holding the comment tag `@ko <mark>`, or the line after it when the comment stands alone. The mark is in
 * exactly one file, and `find` starts on that line and occurs there exactly once. Knock-outs of one line share its mark.
 */
export interface Knockout {
  id: string;
  /** What the change removes, in a user's words. */
  mechanism: string;
  /** The mark on (or directly above) the changed line. */
  mark: string;
  find: string;
  replace: string;
  /** Test files that must turn red with the change in place (run alone: one layer must not hide another's bug). */
  tests: string[];
}
