/**
 * The client's entry points export exactly the public surface its README documents: a name added to the
 * index without the README (or left in the README after leaving the index) fails here. Whoever adds a
 * public export adds it to the list below and to the README's table.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as client from '@evf/client';
import * as node from '@evf/client/node';

const PUBLIC = [
  'API_KEY_PREFIX',
  'AbortedError',
  'ApiError',
  'AuthenticationError',
  'BadRequestError',
  'CATEGORIES',
  'ConnectionError',
  'EmailVerificationClient',
  'EvfError',
  'GROUPS',
  'InputError',
  'InsufficientCreditsError',
  'JOB_STATUSES',
  'JobWaitTimeoutError',
  'LIMITS',
  'NotFoundError',
  'PLAN_ALLOWANCES',
  'PRIORITIES',
  'PartialSubmissionError',
  'AllowanceExceededError',
  'PermissionDeniedError',
  'RESULT_COLUMNS',
  'RateLimitError',
  'RequestTimeoutError',
  'STOPPED_STATUSES',
  'ServerError',
  'ServiceUnavailableError',
  'SubmissionUncertainError',
  'TimeBudgetSpentError',
  'TransportError',
  'UnprocessableError',
  'VerificationTimeoutError',
  'VerificationUncertainError',
  'WEBHOOK_SECRET_PREFIX',
  'WebhookVerificationError',
  'addressesByItem',
  'allowanceOf',
  'badInputVerdict',
  'nextSend',
  'rememberRun',
  'runList',
  'openBook',
  'LIST_WINDOW_MS',
  'SETTLE_AFTER_MS',
  'readFinishedFeed',
  'VERIFY_AGAIN_DELAYS_MS',
  'mayVerifyAgain',
  'openVerifyAgain',
  'verifyAgainFields',
  'recordAnswers',
  'entryFor',
  'isDueAgain',
  'dueAgain',
  'answeredRowFields',
  'isRowDueAgain',
  'creditThreshold',
  'creditBelow',
  'coverList',
  'readPositionWindow',
  'assertApiKey',
  'assertWebhookSecret',
  'baseUrlProblem',
  'buildWebhookDelivery',
  'categorize',
  'checkCompletionMessage',
  'checkResolvedAddresses',
  'checkWebhookUrl',
  'classifyAddress',
  'countByGroup',
  'createRowSharer',
  'emailProblem',
  'errorField',
  'errorReason',
  'errorStatus',
  'failureContextOf',
  'isEmailSyntaxValid',
  'isJobStopped',
  'isOpenRow',
  'isLoopbackUrl',
  'listFingerprint',
  'lowerCaseHeaders',
  'parseRetryHeader',
  'preflightEmails',
  'assertSomethingToSend',
  'rowVerdicts',
  'signWebhook',
  'summarizePreflight',
  'transportFailure',
  'verifyWebhook',
  'withCategory',
];
const NODE_ONLY = ['acceleratedRuntime', 'createClient', 'fetchTransport', 'nodeRuntime'];

/** The backquoted names of the README's "Public surface" section, outside parentheses, before "The client's methods". */
function readmeNames(): { table: string[]; nodeLine: string[] } {
  const readme = readFileSync(join(__dirname, '../README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## Public surface'));
  const table = section
    .split('\n')
    .filter((line) => line.startsWith('| ') && !line.startsWith('| Group'))
    .map((line) => line.split('|')[2] ?? '')
    .join(' ');
  let flat = table;
  while (/\([^()]*\)/.test(flat)) flat = flat.replace(/\([^()]*\)/g, '');
  const names = (text: string) => [...text.matchAll(/`([A-Za-z_][A-Za-z0-9_]*)`/g)].map((m) => m[1]!);
  const nodeLine = section.split('\n').find((line) => line.startsWith('`@evf/client/node` adds')) ?? '';
  return { table: names(flat), nodeLine: names(nodeLine).filter((n) => n !== 'evf') };
}

describe("the client's public surface", () => {
  it('@evf/client exports exactly the listed names', () => {
    expect(Object.keys(client).sort()).toEqual([...PUBLIC].sort());
  });

  it('@evf/client/node exports the same plus its Node defaults', () => {
    expect(Object.keys(node).sort()).toEqual([...PUBLIC, ...NODE_ONLY].sort());
  });

  it("the README's table names exactly these exports, and its node line the Node defaults", () => {
    const { table, nodeLine } = readmeNames();
    expect([...new Set(table)].sort()).toEqual([...PUBLIC].sort());
    expect(nodeLine.sort()).toEqual([...NODE_ONLY].sort());
  });

  it('no message helper or second error module leaks out', () => {
    for (const internal of [
      'plural',
      'formatWait',
      'extractServerMessage',
      'classifyTransportFailure',
      'assertBaseUrl',
      'HttpCore',
    ]) {
      expect(Object.keys(node)).not.toContain(internal);
    }
  });
});
