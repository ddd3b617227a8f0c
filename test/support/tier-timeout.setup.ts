// For jest.config.js `setupFilesAfterEnv`: each tier's default test timeout. jest reads `testTimeout`
// only from the global config, one value for every project, so each project passes its own in
// `globals.EVF_TIER_TIMEOUT_MS` and this sets it; a file's or a test's own timeout still wins.
const timeout = (globalThis as { EVF_TIER_TIMEOUT_MS?: unknown }).EVF_TIER_TIMEOUT_MS;
if (typeof timeout === 'number') jest.setTimeout(timeout);
