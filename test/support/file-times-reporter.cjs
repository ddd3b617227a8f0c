// A jest reporter that appends each test file's wall time to the file named by EVF_TEST_TIMES (one JSON
// line per file), so `npm test` can print the slowest files of every jest run it makes: the three tiers
// and the real-n8n suites that the packages' checks run with this same config. Without the variable
// it does nothing, so a plain `npx jest` is unchanged.
const { appendFileSync } = require('node:fs');
const { relative } = require('node:path');

class FileTimesReporter {
  constructor(globalConfig) {
    this.rootDir = globalConfig.rootDir;
  }

  onTestResult(test, result) {
    const out = process.env.EVF_TEST_TIMES;
    if (!out) return;
    const { start, end } = result.perfStats;
    const line = {
      file: relative(this.rootDir, result.testFilePath),
      project: test.context.config.displayName?.name ?? '',
      seconds: Math.max(0, (end - start) / 1000),
      tests: result.numPassingTests + result.numFailingTests,
    };
    appendFileSync(out, `${JSON.stringify(line)}\n`);
  }
}

module.exports = FileTimesReporter;
