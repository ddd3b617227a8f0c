import {
  assertMatches,
  ContractMismatchError,
  fieldNames,
  findOperation,
  operations,
  responseSchemaFor,
  validate,
  validateResponse,
} from '@evf/contract';
import { loadFixture } from '@evf/contract/fixtures';

const completedJob = () => loadFixture<Record<string, unknown>>('job.completed.200').body!;

describe('contract helpers', () => {
  it('validate reports readable errors naming the field', () => {
    const job = { ...completedJob(), terminal: 'yes' };
    delete (job as Record<string, unknown>).buckets;
    const result = validate('Job', job);
    expect(result.valid).toBe(false);
    expect(result.errors).toEqual(
      expect.arrayContaining(['/terminal: must be boolean', "(root): must have required property 'buckets'"]),
    );
  });

  it('assertMatches throws a ContractMismatchError listing every problem', () => {
    expect(() => assertMatches('Job', completedJob())).not.toThrow();
    const bad = { ...completedJob(), verdicts: { valid: 1 } };
    expect(() => assertMatches('Job', bad)).toThrow(ContractMismatchError);
    expect(() => assertMatches('Job', bad)).toThrow(/\/verdicts: must have required property 'invalid'/);
  });

  it('rejects unknown schema names clearly', () => {
    expect(() => validate('Jobs', {})).toThrow(/Unknown contract schema "Jobs"/);
  });

  it('Details accepts informational extra fields but not a wrong primary_label', () => {
    const details = {
      primary_label: 'valid',
      tags: [],
      label_reasons: [],
      smtp_provider: 'google',
      mx_records: ['a'],
    };
    expect(validate('Details', details).valid).toBe(true);
    expect(validate('Details', { ...details, primary_label: 'deliverable' }).valid).toBe(false);
  });

  it('a queued job may omit or null started_at and completed_at', () => {
    const job = { ...loadFixture<Record<string, unknown>>('job.queued.200').body! };
    expect(validate('Job', job).valid).toBe(true);
    delete job.started_at;
    delete job.completed_at;
    expect(validate('Job', job).valid).toBe(true);
    expect(validate('Job', { ...job, started_at: 'yesterday' }).valid).toBe(false);
  });

  it('webhook body: error only on job.failed, status agrees with event', () => {
    const base = {
      job_id: 'j',
      total_emails: 1,
      processed_emails: 1,
      verdicts: completedJob().verdicts,
      created_at: '2026-01-15T09:30:00Z',
      completed_at: '2026-01-15T09:31:00Z',
      results_url: '/v1/jobs/j/results',
    };
    expect(validate('WebhookBody', { ...base, event: 'job.completed', status: 'completed' }).valid).toBe(
      true,
    );
    expect(
      validate('WebhookBody', { ...base, event: 'job.failed', status: 'failed', error: 'stopped' }).valid,
    ).toBe(true);
    expect(validate('WebhookBody', { ...base, event: 'job.failed', status: 'failed' }).valid).toBe(false);
    expect(validate('WebhookBody', { ...base, event: 'job.completed', status: 'failed' }).valid).toBe(false);
    expect(
      validate('WebhookBody', { ...base, event: 'job.completed', status: 'completed', error: 'x' }).valid,
    ).toBe(false);
    expect(
      validate('WebhookBody', {
        ...base,
        event: 'job.completed',
        status: 'completed',
        created_at: '2026-01-15T10:30:00+01:00',
      }).valid,
    ).toBe(false);
  });

  it('fieldNames lists the declared properties', () => {
    expect(fieldNames('JobListItem')).toEqual([
      'job_id',
      'status',
      'total_emails',
      'processed',
      'progress_percent',
      'created_at',
    ]);
    expect(fieldNames('ResultRow')).toEqual(['email', 'status', 'valid', 'score', 'reason', 'details']);
    expect(fieldNames('Error')).toEqual([]);
  });

  it('finds operations for concrete paths, full URLs and query strings', () => {
    expect(findOperation('get', '/v1/jobs/abc123')?.operationId).toBe('getJob');
    expect(findOperation('GET', '/v1/jobs')?.operationId).toBe('listJobs');
    expect(findOperation('GET', '/v1/jobs?status=completed')?.operationId).toBe('listJobs');
    expect(findOperation('GET', 'http://127.0.0.1:9/api/v1/jobs/abc/results?page=2')?.operationId).toBe(
      'getJobResults',
    );
    expect(findOperation('DELETE', '/api/v1/keys/key_1')?.operationId).toBe('revokeKey');
    expect(findOperation('POST', '/v1/jobs/abc')).toBeUndefined();
    expect(findOperation('GET', '/v1/jobs/abc/results/extra')).toBeUndefined();
  });

  it('responseSchemaFor maps statuses, falling back to default', () => {
    expect(responseSchemaFor('GET', '/v1/jobs/abc', 200)).toBe('Job');
    expect(responseSchemaFor('GET', '/v1/jobs/abc', 404)).toBe('Error');
    expect(responseSchemaFor('DELETE', '/v1/keys/k', 204)).toBeNull();
    expect(() => responseSchemaFor('GET', '/v2/jobs', 200)).toThrow(/not an operation/);
  });

  it('validateResponse checks the body and the required headers', () => {
    expect(validateResponse('GET', '/v1/jobs/abc', 200, completedJob()).valid).toBe(true);
    expect(validateResponse('GET', '/v1/jobs/abc', 200, { job_id: 'abc' }).valid).toBe(false);
    expect(validateResponse('POST', '/v1/verify/bulk', 503, {}, { 'retry-after': '5' }).valid).toBe(true);
    expect(validateResponse('POST', '/v1/verify/bulk', 503, {}, {}).errors).toEqual([
      '(headers): missing required header Retry-After',
    ]);
    expect(validateResponse('DELETE', '/v1/keys/k', 204, '').valid).toBe(true);
    expect(validateResponse('DELETE', '/v1/keys/k', 204, { ok: true }).valid).toBe(false);
  });

  it('operations describe query parameters and body fields', () => {
    const bulk = operations.find((o) => o.operationId === 'verifyBulk')!;
    expect(bulk.bodyFields.map((f) => [f.name, f.required])).toEqual([
      ['emails', true],
      ['name', false],
      ['webhook_url', false],
      ['priority', false],
      ['check_smtp', false],
    ]);
    expect(bulk.bodyFields.find((f) => f.name === 'priority')!.schema.enum).toEqual([
      'normal',
      'high',
      'urgent',
    ]);
    const results = operations.find((o) => o.operationId === 'getJobResults')!;
    expect(results.queryParams.map((p) => p.name)).toEqual(['page', 'per_page']);
  });
});
