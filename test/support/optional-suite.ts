/**
 * The one rule for a suite whose prerequisite a user's machine may lack (Make's schemas and validator,
 * openssl, Chromium, redis-server and PostgreSQL, a memory cgroup): without it the suite is skipped with
 * one line saying what is missing and how to get it, except under EVF_REQUIRE_ALL_SUITES=1 (.ci/run),
 * where the missing prerequisite fails the run, so CI never passes by skipping.
 */

/** Whether every optional suite must run here (EVF_REQUIRE_ALL_SUITES=1, set by .ci/run). */
export const allSuitesRequired = (): boolean => process.env.EVF_REQUIRE_ALL_SUITES === '1';

/**
 * A prerequisite found missing: under EVF_REQUIRE_ALL_SUITES=1 this throws `missing`; otherwise it writes
 * one line, `<missing>; <instead>`, to stderr (outside jest's console capture) and returns false.
 */
export function prerequisiteMissing(missing: string, instead: string): false {
  if (allSuitesRequired()) throw new Error(missing);
  process.stderr.write(`${missing}; ${instead}\n`);
  return false;
}

/**
 * `describe(title, body)` when `missing` is undefined. Otherwise the one-line skip, or under
 * EVF_REQUIRE_ALL_SUITES=1 one test that fails with `missing`; `body` is not run either way, so it may
 * use the prerequisite freely.
 */
export function describeWhenPresent(title: string, missing: string | undefined, body: () => void): void {
  if (missing === undefined) {
    describe(title, body);
  } else if (allSuitesRequired()) {
    describe(title, () => {
      it('has its prerequisite (required under EVF_REQUIRE_ALL_SUITES=1)', () => {
        throw new Error(missing);
      });
    });
  } else {
    process.stderr.write(`${missing}; skipped\n`);
    describe.skip(title, () => {
      it.skip('needs a missing prerequisite', () => undefined);
    });
  }
}
