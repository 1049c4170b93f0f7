// Vitest setup: fast-check generates arrays and strings up to the maxLength a test writes, not its default size.
// fast-check 4 sizes an arbitrary by `baseSize` ('small': at most ~10 items) even where a test says maxLength: 200;
// with this, a bound written in a test is the size it runs at. Stateful properties also pass size: 'max' themselves
// and count the states they reach (see docs/testing.md), so they do not depend on this file alone.
import fc from 'fast-check';

fc.configureGlobal({ ...fc.readConfigureGlobal(), defaultSizeToMaxWhenMaxSpecified: true });
