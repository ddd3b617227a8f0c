import { startSandbox, type Sandbox } from '@evf/sandbox';
import { runDemo } from '../demo';

let sb: Sandbox;
beforeAll(async () => {
  sb = await startSandbox({ port: 0, timeScale: 0.01, allowInsecureWebhooks: true });
});
afterAll(() => sb?.close());

it('walks verify, bulk with callback, find job and results against the sandbox, never printing secrets', async () => {
  const lines: string[] = [];
  await runDemo({
    baseUrl: sb.baseUrl,
    apiKey: sb.apiKey,
    webhookSecret: sb.webhookSecret,
    log: (l = '') => lines.push(l),
  });
  const text = lines.join('\n');
  expect(text).toMatch(/1\. Connection tested/);
  expect(text).toMatch(/2\. Verify Email Address: catchall\.carl@acme-corp\.com -> Catch-All/);
  expect(text).toMatch(
    /3\. Verify List and Wait: job \S+ submitted with 7 unique addresses \(1 duplicate and 1 malformed removed/,
  );
  expect(text).toMatch(
    /tampered copy of the callback is not trusted \(signature mismatch\): the \d+ rows are read with the key instead/,
  );
  expect(text).toMatch(/7 results as line items: 2 safe to send, 3 risky, 2 invalid/);
  expect(text).toMatch(/4\. Find Bulk Job: \S+ is completed, 7\/7 processed/);
  expect(text).toMatch(
    /5\. Find Bulk Job Results \(Safe to send only\): valid\.anna@acme-corp\.com, valid\.bea@acme-corp\.com/,
  );
  expect(text).not.toContain(sb.apiKey);
  expect(text).not.toContain(sb.webhookSecret);
});
