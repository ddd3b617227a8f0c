// Runs steps of an unpacked build.zip the way Zapier's runtime does: through the zip's own
// zapierwrapper.js (the Lambda entry `zapier-platform build` adds) and the zapier-platform-core copy
// inside the zip, with nothing from this repository on the module path. Started by
// zapier-build.e2e.test.ts on the Node version Zapier runs core 19 on.
//
// argv: <unpacked zip folder> <steps JSON file> <results JSON file>. The API key comes in the
// environment (EVF_E2E_API_KEY), never on the command line, and is never printed.
const path = require('node:path');
const { readFileSync, writeFileSync } = require('node:fs');

async function main() {
  const [dir, stepsFile, resultsFile] = process.argv.slice(2);
  const { handler } = require(path.join(dir, 'zapierwrapper.js'));
  const authData = { api_key: process.env.EVF_E2E_API_KEY };
  const steps = JSON.parse(readFileSync(stepsFile, 'utf8'));
  const results = { node: process.version, steps: [] };
  const outputs = {};
  for (const step of steps) {
    // A later step may map an earlier one's output, as a Zap does ("{{step.field}}").
    const inputData = JSON.parse(
      JSON.stringify(step.inputData ?? {}).replace(
        /\{\{(\w+)\.(\w+)\}\}/g,
        (_, from, key) => outputs[from]?.[key] ?? '',
      ),
    );
    try {
      const response = await handler(
        { command: 'execute', method: step.method, bundle: { authData, inputData } },
        {},
      );
      outputs[step.name] = Array.isArray(response.results) ? response.results[0] : response.results;
      results.steps.push({ name: step.name, ok: true, results: response.results });
    } catch (error) {
      results.steps.push({ name: step.name, ok: false, error: String(error && error.message) });
    }
  }
  writeFileSync(resultsFile, JSON.stringify(results));
}

main().catch((error) => {
  process.stderr.write(`${error && error.stack}\n`);
  process.exit(1);
});
