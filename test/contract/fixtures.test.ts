import { operations, validateResponse, findOperation } from '@evf/contract';
import { fixtureNames, loadFixture } from '@evf/contract/fixtures';

describe('response fixtures', () => {
  it.each(fixtureNames)('%s matches the contract for its request and status', (name) => {
    const fixture = loadFixture(name);
    const result = validateResponse(
      fixture.request.method,
      fixture.request.path,
      fixture.status,
      fixture.body,
      fixture.headers ?? {},
    );
    expect(result.errors).toEqual([]);
  });

  it('names say the status they hold', () => {
    for (const name of fixtureNames) {
      const status = name.match(/\.(\d{3})(?:\.|-|$)/)?.[1];
      expect([name, status]).toEqual([name, String(loadFixture(name).status)]);
    }
  });

  it('cover a success response of every operation', () => {
    const covered = new Set(
      fixtureNames
        .map((n) => loadFixture(n))
        .filter((f) => f.status < 300)
        .map((f) => findOperation(f.request.method, f.request.path)!.operationId),
    );
    expect([...covered].sort()).toEqual(operations.map((o) => o.operationId).sort());
  });

  it('cover every error status the spec names', () => {
    const statuses = new Set(fixtureNames.map((n) => loadFixture(n).status));
    for (const s of [401, 402, 404, 408, 422, 429, 503]) expect(statuses).toContain(s);
  });

  it('a damaged fixture is caught (the check above can fail)', () => {
    const fixture = loadFixture<Record<string, any>>('results.page1.200');
    fixture.body!.results[0].details.primary_label = 'maybe';
    const result = validateResponse('GET', fixture.request.path, 200, fixture.body);
    expect(result.errors).toEqual([
      '/results/0/details/primary_label: must be equal to one of the allowed values (valid, invalid, catch_all, inbox_full, disabled, unknown, not_verified)',
    ]);
    const rateLimited = loadFixture('error.429');
    expect(validateResponse('POST', rateLimited.request.path, 429, rateLimited.body, {}).valid).toBe(false);
  });

  it('results pages are consistent with each other and with the completed job', () => {
    const p1 = loadFixture<Record<string, any>>('results.page1.200').body!;
    const p2 = loadFixture<Record<string, any>>('results.page2.200').body!;
    const job = loadFixture<Record<string, any>>('job.completed.200').body!;
    expect([p1.has_more, p2.has_more]).toEqual([true, false]);
    expect(p1.results.length + p2.results.length).toBe(job.total_emails);
    const emails = [...p1.results, ...p2.results].map((r: { email: string }) => r.email.toLowerCase());
    expect(new Set(emails).size).toBe(emails.length);
    const verdictTotal = Object.values(job.verdicts as Record<string, number>).reduce((a, b) => a + b, 0);
    const bucketTotal = Object.values(job.buckets as Record<string, number>).reduce((a, b) => a + b, 0);
    expect([verdictTotal, bucketTotal]).toEqual([job.total_emails, job.total_emails]);
  });

  it('loadFixture returns a fresh copy and rejects unknown names', () => {
    loadFixture<Record<string, unknown>>('credits.200').body!.credits = -1;
    expect(loadFixture<Record<string, unknown>>('credits.200.json').body!.credits).toBe(48200);
    expect(() => loadFixture('nope')).toThrow(/Unknown fixture "nope"/);
  });
});
