// The shape of one knock-out (its own file, so the lists and the table that gathers them never import each other).

/** One mechanism switched off: `find` (which must occur exactly once in `file`) becomes `replace`. */
export interface Knockout {
  id: string;
  /** What the change removes, in a user's words. */
  mechanism: string;
  file: string;
  find: string;
  replace: string;
  /** Test files that must turn red with the change in place (run alone: one layer must not hide another's bug). */
  tests: string[];
}
