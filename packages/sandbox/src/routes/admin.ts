import type { IncomingMessage } from 'node:http';
import type { SandboxContext } from '../context';
import { jobView } from '../engine/jobs';
import type { FailNextSpec } from '../faults';
import { HttpError } from '../http/errors';
import { readJsonObject } from '../http/io';
import type { Reply } from '../http/reply';
import type { RequestLogEntry } from '../request-log';

/**
 * The admin API under /__sandbox/, for tests in other processes and for manual fault drills.
 * It takes no API key (the sandbox listens on loopback) and never returns keys or signing secrets.
 */
function optionalNumber(body: Record<string, unknown>, name: string): number | undefined {
  const v = body[name];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'number' || !Number.isFinite(v))
    throw new HttpError(422, 'invalid_request', `${name} must be a number.`, { field: name, rule: 'type' });
  return v;
}

function optionalString(body: Record<string, unknown>, name: string): string | undefined {
  const v = body[name];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string')
    throw new HttpError(422, 'invalid_request', `${name} must be text.`, { field: name, rule: 'type' });
  return v;
}

function optionalBoolean(body: Record<string, unknown>, name: string): boolean | undefined {
  const v = body[name];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'boolean')
    throw new HttpError(422, 'invalid_request', `${name} must be true or false.`, {
      field: name,
      rule: 'type',
    });
  return v;
}

/** Turns the faults' own TypeError/RangeError into a 422 naming the problem. */
function guarded(fn: () => void): Reply {
  try {
    fn();
  } catch (err) {
    if (err instanceof TypeError || err instanceof RangeError)
      throw new HttpError(422, 'invalid_request', err.message);
    throw err;
  }
  return { status: 204 };
}

function matcher(body: Record<string, unknown>): { path?: string | RegExp; method?: string } {
  const regex = optionalString(body, 'path_regex');
  const path = optionalString(body, 'path');
  const method = optionalString(body, 'method');
  let compiled: RegExp | undefined;
  if (regex !== undefined) {
    try {
      compiled = new RegExp(regex);
    } catch {
      throw new HttpError(422, 'invalid_request', 'path_regex is not a valid regular expression.', {
        field: 'path_regex',
        rule: 'regex',
      });
    }
  }
  return {
    ...(compiled ? { path: compiled } : path !== undefined ? { path } : {}),
    ...(method ? { method } : {}),
  };
}

export async function handleAdmin(
  ctx: SandboxContext,
  req: IncomingMessage,
  path: string,
  requests: readonly RequestLogEntry[],
): Promise<Reply> {
  const method = (req.method ?? 'GET').toUpperCase();
  const body =
    method === 'POST'
      ? await readJsonObject(req, 1_000_000).catch(() => ({}) as Record<string, unknown>)
      : {};
  const route = `${method} ${path}`;
  const { faults } = ctx;

  if (route === 'GET /state') {
    return {
      status: 200,
      body: {
        time_scale: ctx.clock.timeScale,
        now: ctx.clock.nowIso(),
        faults: faults.snapshot(),
        accounts: ctx.accounts.all().map((a) => ({ account_id: a.id, plan: a.plan, ...a.ledger.summary() })),
        jobs: ctx.jobs.all().map((j) => ({ account_id: j.accountId, ...jobView(j) })),
      },
    };
  }
  if (route === 'GET /requests') return { status: 200, body: { requests } };
  if (route === 'GET /webhooks') return { status: 200, body: { attempts: ctx.webhooks.attempts } };
  const ledger = /^\/ledger\/([^/]+)$/.exec(path);
  if (method === 'GET' && ledger) {
    const account = ctx.accounts.get(decodeURIComponent(ledger[1]!));
    if (!account) throw new HttpError(404, 'not_found', 'No such account id.');
    return { status: 200, body: account.ledger.summary() };
  }
  if (route === 'DELETE /faults') return guarded(() => faults.clear());
  if (route === 'POST /faults/fail-job') {
    return guarded(() =>
      faults.failJob(optionalString(body, 'job_id'), {
        afterRows: optionalNumber(body, 'after_rows'),
        error: optionalString(body, 'error'),
      }),
    );
  }
  if (route === 'POST /faults/pause-new-jobs') {
    return guarded(() =>
      faults.pauseNewJobs({
        retryAfterSeconds: optionalNumber(body, 'retry_after_seconds'),
        afterJobs: optionalNumber(body, 'after_jobs'),
        liftsAtRetryAfter: optionalBoolean(body, 'lifts_at_retry_after'),
      }),
    );
  }
  if (route === 'DELETE /faults/pause-new-jobs') return guarded(() => faults.resumeNewJobs());
  if (route === 'POST /faults/fail-next') {
    const drop = optionalString(body, 'drop');
    if (drop !== undefined && drop !== 'before-response' && drop !== 'mid-body') {
      throw new HttpError(422, 'invalid_request', 'drop must be before-response or mid-body.', {
        field: 'drop',
        rule: 'enum',
      });
    }
    const when = optionalString(body, 'when');
    if (when !== undefined && when !== 'before' && when !== 'after') {
      throw new HttpError(422, 'invalid_request', 'when must be before or after.', {
        field: 'when',
        rule: 'enum',
      });
    }
    const from = optionalString(body, 'from');
    if (from !== undefined && from !== 'service' && from !== 'gateway') {
      throw new HttpError(422, 'invalid_request', 'from must be service or gateway.', {
        field: 'from',
        rule: 'enum',
      });
    }
    const spec: FailNextSpec = {
      ...matcher(body),
      status: optionalNumber(body, 'status'),
      drop: drop as FailNextSpec['drop'],
      count: optionalNumber(body, 'count'),
      retryAfterSeconds: optionalNumber(body, 'retry_after_seconds'),
      when: when as FailNextSpec['when'],
      from: from as FailNextSpec['from'],
    };
    return guarded(() => faults.failNext(spec));
  }
  if (route === 'POST /faults/slow') {
    const delayMs = optionalNumber(body, 'delay_ms');
    if (delayMs === undefined)
      throw new HttpError(422, 'invalid_request', 'delay_ms is required.', {
        field: 'delay_ms',
        rule: 'required',
      });
    const when = optionalString(body, 'when');
    if (when !== undefined && when !== 'before' && when !== 'after') {
      throw new HttpError(422, 'invalid_request', 'when must be before or after.', {
        field: 'when',
        rule: 'enum',
      });
    }
    return guarded(() =>
      faults.slow({
        ...matcher(body),
        delayMs,
        count: optionalNumber(body, 'count'),
        when: when as 'before' | 'after' | undefined,
      }),
    );
  }
  if (route === 'POST /faults/webhook-failures')
    return guarded(() => faults.webhookFailures(optionalNumber(body, 'count') ?? 0));
  if (route === 'POST /faults/latency')
    return guarded(() => faults.setLatency(optionalNumber(body, 'ms') ?? 0));
  if (route === 'POST /clock/advance')
    return guarded(() => ctx.clock.advance(optionalNumber(body, 'ms') ?? 0));
  throw new HttpError(404, 'not_found', `No admin endpoint ${method} /__sandbox${path}.`);
}
