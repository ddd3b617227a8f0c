import http, { STATUS_CODES, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SandboxClock } from './clock';
import { DEMO_ACCOUNT } from './demo-account';
import type { SandboxContext } from './context';
import { AccountStore, type Account, type AccountCredentials, type AccountSeed } from './engine/accounts';
import { JobEngine, jobView } from './engine/jobs';
import type { LedgerSummary } from './engine/ledger';
import { FaultController, type FailNextSpec } from './faults';
import { HttpError } from './http/errors';
import { sendJson } from './http/io';
import { formatWaitHeader, type Reply } from './http/reply';
import { loadConfigFile, nonNegative, positive, type SandboxOptions } from './options';
import type { RequestLogEntry } from './request-log';
import { handleAdmin } from './routes/admin';
import { handleApi } from './routes/api';
import type { Job } from './rules';
import { systemResolver, WebhookDispatcher, type DeliveryAttempt } from './webhooks';

export interface Sandbox {
  /** Base URL of the API, ending in /api like the real service's, e.g. http://127.0.0.1:41234/api */
  baseUrl: string;
  /** The server's origin, e.g. http://127.0.0.1:41234 (the admin API is at origin + /__sandbox). */
  origin: string;
  port: number;
  /** The first seeded account's key, id and signing secret. */
  apiKey: string;
  keyId: string;
  webhookSecret: string;
  accountId: string;
  /** Credit ledger of an account, by account id or by one of its keys. */
  ledger(accountIdOrKey?: string): LedgerSummary;
  /** Requests received under the base URL (no headers, no bodies). */
  requests: RequestLogEntry[];
  /** Webhook delivery attempts, in order. */
  webhookAttempts: DeliveryAttempt[];
  faults: FaultController;
  credentials(accountId: string): AccountCredentials;
  /** Every key of an account (active and revoked), for tests of rotation and revocation. */
  apiKeys(accountId: string): { keyId: string; apiKey: string; revoked: boolean }[];
  addAccount(seed: AccountSeed): AccountCredentials;
  /** Rotates an account's signing secret (takes effect at once) and returns the new one. */
  rotateWebhookSecret(accountId?: string, secret?: string): string;
  /** Moves wall time forward (for the 24-hour and 30-day windows) without waiting. */
  advanceTime(ms: number): void;
  /** A job as GET /v1/jobs/{id} would show it, regardless of account. */
  job(jobId: string): Job | undefined;
  /** Resolves when no webhook delivery is under way. */
  webhooksIdle(): Promise<void>;
  close(): Promise<void>;
}

/**
 * With no accounts given, the sandbox seeds the demo account with fresh credentials: the fixed public
 * key and secret are for `npm start` and `npm run n8n`, which seed DEMO_ACCOUNT as it is.
 */
function withFreshCredentials({ keys: _keys, webhookSecret: _secret, ...profile }: AccountSeed): AccountSeed {
  return profile;
}
const MAX_LOGGED_REQUESTS = 100_000;

function injectedFailure(ctx: SandboxContext, spec: FailNextSpec, when: 'before' | 'after'): Reply {
  const status = spec.status ?? 500;
  if ((spec.from ?? (when === 'after' ? 'gateway' : 'service')) === 'gateway') {
    const title = `${status} ${STATUS_CODES[status] ?? 'Error'}`;
    return {
      status,
      headers: { 'Content-Type': 'text/html' },
      rawBody: `<html>\r\n<head><title>${title}</title></head>\r\n<body>\r\n<center><h1>${title}</h1></center>\r\n</body>\r\n</html>\r\n`,
    };
  }
  const now = ctx.clock.now();
  const at = now + ctx.clock.scaled((spec.retryAfterSeconds ?? 1) * 1000);
  const headers: Record<string, string> = {};
  if (status === 429) headers['X-RateLimit-Reset'] = formatWaitHeader(at, now, ctx.rateLimitResetFormat);
  if (status === 503) headers['Retry-After'] = formatWaitHeader(at, now, ctx.retryAfterFormat);
  const body = new HttpError(
    status,
    'injected_fault',
    `Injected fault: the sandbox was told to answer ${status} here.`,
  ).toBody();
  return { status, body, headers };
}

function writeReply(res: ServerResponse, reply: Reply, requestId: string): void {
  const headers = { 'X-Request-Id': requestId, ...(reply.headers ?? {}) };
  if (reply.rawBody !== undefined) {
    res.writeHead(reply.status, { 'Content-Length': String(Buffer.byteLength(reply.rawBody)), ...headers });
    res.end(reply.rawBody);
  } else if (reply.body === undefined) {
    res.writeHead(reply.status, headers);
    res.end();
  } else sendJson(res, reply.status, reply.body, headers);
}

/** Sends the status line and half the body, then cuts the connection: a read that dies mid-transfer. */
function cutMidBody(res: ServerResponse, reply: Reply): void {
  const text = JSON.stringify(reply.body ?? {});
  const bytes = Buffer.from(text);
  res.writeHead(reply.status, {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': bytes.length,
  });
  res.write(bytes.subarray(0, Math.floor(bytes.length / 2)), () => res.socket?.destroy());
}

function errorReply(err: unknown): Reply {
  if (err instanceof HttpError) return { status: err.status, body: err.toBody(), headers: err.headers };
  return {
    status: 500,
    body: new HttpError(500, 'internal_error', 'The sandbox hit an internal error.').toBody(),
  };
}

/** The context every route shares, and the accounts seeded at start (the first one's are the Sandbox's own). */
function buildContext(opts: SandboxOptions): { ctx: SandboxContext; seeded: Account[] } {
  const clock = new SandboxClock(positive('timeScale', opts.timeScale ?? 1), opts.now);
  const accounts = new AccountStore(() => clock.now());
  const seeds = opts.accounts && opts.accounts.length ? opts.accounts : [withFreshCredentials(DEMO_ACCOUNT)];
  const seeded = seeds.map((s) => accounts.add(s));
  const jobs = new JobEngine({
    clock,
    rowsPerSecond: positive('rowsPerSecond', opts.rowsPerSecond ?? 200),
    queueDelayMs: nonNegative('queueDelayMs', opts.queueDelayMs ?? 1000),
  });
  const faults = new FaultController(jobs, {
    ...opts.faults,
    latencyMs: opts.latencyMs ?? opts.faults?.latencyMs,
  });
  const resolver = opts.resolver ?? systemResolver;
  const allowInsecureWebhooks = opts.allowInsecureWebhooks === true;
  const webhooks = new WebhookDispatcher({
    clock,
    accounts,
    faults,
    allowInsecureWebhooks,
    resolver,
    retryWaitsMs: opts.webhookRetryWaitsMs,
  });
  jobs.onFinish((job) => {
    const account = accounts.get(job.accountId)!;
    // Unknown answers are refunded at finish; on failure, addresses that got no answer are too.
    const refund = job.refundable + (job.emails.length - job.processed);
    account.ledger.refund(refund, clock.now(), job.id);
    job.refunded = refund;
    webhooks.dispatch(job);
  });
  const ctx: SandboxContext = {
    clock,
    accounts,
    jobs,
    faults,
    webhooks,
    resolver,
    allowInsecureWebhooks,
    rateLimitResetFormat: opts.rateLimitResetFormat ?? 'epoch-seconds',
    retryAfterFormat: opts.retryAfterFormat ?? 'delta-seconds',
    singleLatencyMs: nonNegative('singleLatencyMs', opts.singleLatencyMs ?? 300),
    maxBodyBytes: opts.maxBodyBytes ?? 32 * 1024 * 1024,
    accountExtras: opts.accountExtras === true,
  };
  return { ctx, seeded };
}

/**
 * One request: the admin API, a path outside /api, or an API call with its injected faults (a delay,
 * a failure or a dropped connection before the route runs, or after it in place of its reply).
 */
function requestHandler(
  ctx: SandboxContext,
  requests: RequestLogEntry[],
  adminApi: boolean,
): (req: IncomingMessage, res: ServerResponse) => Promise<void> {
  const { clock, faults } = ctx;
  let requestCounter = 0;
  return async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://sandbox.local');
    const method = (req.method ?? 'GET').toUpperCase();
    const requestId = `req_${(++requestCounter).toString(36)}_${Date.now().toString(36)}`;
    if (adminApi && url.pathname.startsWith('/__sandbox/')) {
      const reply = await handleAdmin(ctx, req, url.pathname.slice('/__sandbox'.length), requests).catch(
        errorReply,
      );
      return writeReply(res, reply, requestId);
    }
    if (url.pathname !== '/api' && !url.pathname.startsWith('/api/')) {
      return writeReply(
        res,
        errorReply(new HttpError(404, 'not_found', 'Not found. The API lives under /api/v1/...')),
        requestId,
      );
    }
    const path = url.pathname.slice('/api'.length) || '/';
    if (requests.length < MAX_LOGGED_REQUESTS) {
      requests.push({ method, path, query: Object.fromEntries(url.searchParams), at: clock.nowIso() });
    }
    await clock.realDelay(faults.latencyMs + faults.takeDelay(method, path));
    let failure = faults.takeFailure(method, path, 'before');
    if (failure && failure.drop !== 'mid-body') {
      if (failure.drop) {
        req.socket.destroy();
        return;
      }
      return writeReply(res, injectedFailure(ctx, failure, 'before'), requestId);
    }
    const reply = await handleApi(ctx, req, path, url.searchParams).catch(errorReply);
    await clock.realDelay(faults.takeDelay(method, path, 'after'));
    failure ??= faults.takeFailure(method, path, 'after');
    if (failure) {
      if (failure.drop === 'mid-body') return cutMidBody(res, reply);
      if (failure.drop) {
        req.socket.destroy();
        return;
      }
      return writeReply(res, injectedFailure(ctx, failure, 'after'), requestId);
    }
    writeReply(res, reply, requestId);
  };
}

/** Listens on host:port (0: any free port) and gives the port taken. */
async function listen(server: http.Server, host: string, port: number): Promise<number> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return (server.address() as AddressInfo).port;
}

/** What a test or the CLI holds: the first account's credentials, the logs, and the handles on time and faults. */
function sandboxHandle(
  ctx: SandboxContext,
  server: http.Server,
  origin: string,
  port: number,
  primary: AccountCredentials,
  requests: RequestLogEntry[],
): Sandbox {
  const { accounts, clock, jobs, webhooks } = ctx;
  const findAccount = (idOrKey: string) => {
    const account = accounts.resolve(idOrKey);
    if (!account) throw new RangeError('no account with that id or key');
    return account;
  };
  let closing: Promise<void> | undefined;
  return {
    baseUrl: `${origin}/api`,
    origin,
    port,
    apiKey: primary.apiKey,
    keyId: primary.keyId,
    webhookSecret: primary.webhookSecret,
    accountId: primary.accountId,
    ledger: (idOrKey = primary.accountId) => findAccount(idOrKey).ledger.summary(),
    requests,
    webhookAttempts: webhooks.attempts,
    faults: ctx.faults,
    credentials: (accountId) => accounts.credentials(findAccount(accountId)),
    apiKeys: (accountId) =>
      findAccount(accountId).keys.map((k) => ({ keyId: k.id, apiKey: k.key, revoked: k.revokedAt !== null })),
    addAccount: (seed) => accounts.credentials(accounts.add(seed)),
    rotateWebhookSecret: (accountId = primary.accountId, secret) =>
      accounts.rotateWebhookSecret(findAccount(accountId), secret),
    advanceTime: (ms) => clock.advance(ms),
    job: (jobId) => {
      const job = jobs.byId(jobId);
      return job ? jobView(job) : undefined;
    },
    webhooksIdle: () => webhooks.idle(),
    close: () =>
      (closing ??= new Promise<void>((resolve) => {
        clock.close();
        webhooks.close();
        server.close(() => resolve());
        server.closeAllConnections();
      })),
  };
}

export async function startSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
  const opts: SandboxOptions = options.configFile
    ? { ...loadConfigFile(options.configFile), ...options }
    : options;
  const { ctx, seeded } = buildContext(opts);
  const requests: RequestLogEntry[] = [];
  const handle = requestHandler(ctx, requests, opts.adminApi !== false);
  const server = http.createServer((req, res) => {
    handle(req, res).catch(() => {
      if (!res.headersSent) writeReply(res, errorReply(new Error('unhandled')), 'req_error');
      else res.destroy();
    });
  });
  server.keepAliveTimeout = 5_000;
  const host = opts.host ?? '127.0.0.1';
  const port = await listen(server, host, opts.port ?? 0);
  const origin = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  return sandboxHandle(ctx, server, origin, port, ctx.accounts.credentials(seeded[0]!), requests);
}
