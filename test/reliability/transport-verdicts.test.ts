/**
 * The three transports (Node's fetch, Zapier's z.request, n8n's httpRequestWithAuthentication) meet the
 * same network failures and must reach the same verdict on each: provably not sent (a charged POST may be
 * sent again) or maybe sent (never resent). Each failure is thrown the way that platform's HTTP library
 * throws it, built with the library's own error classes:
 * - fetch: undici's errors, or Node's system error, as the `cause` of `TypeError('fetch failed')`; an
 *   abort rejects with the signal's reason;
 * - z.request: node-fetch 2.7.0's FetchError (it keeps the system error's code and message only) and
 *   AbortError; a timeout is a FetchError of type `request-timeout`;
 * - n8n: axios' AxiosError (AxiosError.from the system error, ECONNABORTED for its timeout,
 *   CanceledError for an abort) wrapped in n8n-workflow's NodeApiError, as n8n-core's
 *   request-helper-functions does for every failed httpRequestWithAuthentication.
 * The expected verdict is written here from what happened on the wire, not from the client's tables.
 */
import fc from 'fast-check';
import { AxiosError, CanceledError } from 'axios';
import { AbortError as NodeFetchAbortError, FetchError } from 'node-fetch';
import { NodeApiError, type INode } from 'n8n-workflow';
import { errors as undici } from 'undici';
import { TransportError, type TransportRequest } from '@evf/client';
import { fetchTransport } from '@evf/client/node';
import type { ZObject } from 'zapier-platform-core';
import { zapierTransport } from '../../packages/zapier/src/transport';
import { n8nTransport, type RequestContext } from '../../packages/n8n/nodes/EmailVerification/transport';

const URL_ = 'https://api.example.com/api/v1/verify/bulk';
const ADDRESS = '203.0.113.7:443';

/** What happened on the wire. */
type Failure =
  | { at: 'dns'; code: string }
  | { at: 'connect'; code: string }
  | { at: 'tls'; code: string }
  | { at: 'after-send'; code: string; syscall: 'read' | 'write' }
  | { at: 'closed-after-send' }
  | { at: 'no-answer-in-time' }
  | { at: 'abort-before' }
  | { at: 'abort-in-flight' }
  | { at: 'abort-during-body' };

/** Nothing was written before these: the request never left. */
const NOT_SENT: ReadonlySet<Failure['at']> = new Set(['dns', 'connect', 'tls', 'abort-before']);

const DNS = [
  'ENOTFOUND',
  'EAI_AGAIN',
  'EAI_FAIL',
  'EAI_NODATA',
  'EAI_NONAME',
  'ESERVFAIL',
  'ENODATA',
  'EREFUSED',
  'ETIMEOUT',
];
const CONNECT = [
  'ECONNREFUSED',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ECONNRESET',
  'EADDRNOTAVAIL',
  'EACCES',
  'EPERM',
  'ENETDOWN',
];
const TLS = [
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'ERR_TLS_CERT_ALTNAME_INVALID',
  'ERR_TLS_HANDSHAKE_TIMEOUT',
  'ERR_SSL_WRONG_VERSION_NUMBER',
  'ERR_SSL_TLSV1_ALERT_PROTOCOL_VERSION',
];
const AFTER_SEND = [
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ECONNABORTED',
  'ENOTCONN',
  'ESHUTDOWN',
];

const failure: fc.Arbitrary<Failure> = fc.oneof(
  fc.constantFrom(...DNS).map((code) => ({ at: 'dns' as const, code })),
  fc.constantFrom(...CONNECT).map((code) => ({ at: 'connect' as const, code })),
  fc.constantFrom(...TLS).map((code) => ({ at: 'tls' as const, code })),
  fc
    .tuple(fc.constantFrom(...AFTER_SEND), fc.constantFrom('read' as const, 'write' as const))
    .map(([code, syscall]) => ({ at: 'after-send' as const, code, syscall })),
  fc.constantFrom<Failure>(
    { at: 'closed-after-send' },
    { at: 'no-answer-in-time' },
    { at: 'abort-before' },
    { at: 'abort-in-flight' },
    { at: 'abort-during-body' },
  ),
);

/** Node's system error, as libuv reports it: `<syscall> <code> <address>` with code and syscall set. */
function systemError(code: string, syscall: string): Error {
  const detail =
    syscall === 'getaddrinfo' || syscall.startsWith('query') ? ' api.example.com' : ` ${ADDRESS}`;
  return Object.assign(new Error(`${syscall} ${code}${detail}`), { code, syscall, errno: -1 });
}

/** Node's TLS errors carry an OpenSSL or Node code and no syscall. */
function tlsError(code: string): Error {
  return Object.assign(new Error(`TLS failed: ${code.toLowerCase().replace(/_/g, ' ')}`), { code });
}

/** The wire-level error under each library's wrapper (the same for all three). */
function osError(f: Failure): Error | undefined {
  switch (f.at) {
    case 'dns':
      return systemError(
        f.code,
        f.code.startsWith('EAI') || f.code === 'ENOTFOUND' ? 'getaddrinfo' : 'queryA',
      );
    case 'connect':
      return systemError(f.code, 'connect');
    case 'tls':
      return tlsError(f.code);
    case 'after-send':
      return systemError(f.code, f.syscall);
    default:
      return undefined;
  }
}

const abortReason = () => new DOMException('This operation was aborted', 'AbortError');

interface Scenario {
  request: TransportRequest;
  /** Called by the platform's fake library in its place; throws or answers as the library would. */
  controller: AbortController;
}

function scenario(f: Failure): Scenario {
  const controller = new AbortController();
  if (f.at === 'abort-before') controller.abort(abortReason());
  return {
    controller,
    request: {
      method: 'POST',
      url: URL_,
      headers: { 'content-type': 'application/json' },
      body: '{"emails":["a@x.com"]}',
      timeoutMs: 60_000,
      signal: controller.signal,
    },
  };
}

/** Node's fetch (undici 6/7 inside Node 20+). */
async function viaFetch(f: Failure): Promise<unknown> {
  const { request, controller } = scenario(f);
  const fetchFailed = (cause: unknown) => new TypeError('fetch failed', { cause });
  const spy = jest.spyOn(globalThis, 'fetch').mockImplementation(async (_url, init) => {
    const signal = (init as RequestInit).signal!;
    if (signal.aborted) throw signal.reason;
    switch (f.at) {
      case 'connect':
        // undici reports its own connect timer as ConnectTimeoutError, the OS's failures as they are.
        if (f.code === 'ETIMEDOUT') throw fetchFailed(new undici.ConnectTimeoutError());
        throw fetchFailed(osError(f));
      case 'closed-after-send':
        throw fetchFailed(new undici.SocketError('other side closed'));
      case 'no-answer-in-time':
        throw fetchFailed(new undici.HeadersTimeoutError());
      case 'abort-in-flight':
        controller.abort(abortReason());
        throw signal.reason;
      case 'abort-during-body':
        return {
          status: 200,
          headers: new Headers(),
          text: async () => {
            controller.abort(abortReason());
            throw signal.reason;
          },
        } as unknown as Response;
      default:
        throw fetchFailed(osError(f));
    }
  });
  try {
    return await fetchTransport(request).then(
      () => undefined,
      (e: unknown) => e,
    );
  } finally {
    spy.mockRestore();
  }
}

/** zapier-platform-core 19's z.request, which is node-fetch 2.7.0 underneath. */
async function viaZapier(f: Failure): Promise<unknown> {
  const { request, controller } = scenario(f);
  const fetchFailed = (cause: Error) =>
    new FetchError(`request to ${URL_} failed, reason: ${cause.message}`, 'system', cause as never);
  const z = {
    request: async (options: { signal?: AbortSignal }) => {
      if (options.signal?.aborted) throw new NodeFetchAbortError('The user aborted a request.');
      switch (f.at) {
        case 'closed-after-send':
          // Node's http client: the socket closed before a response ("socket hang up").
          throw fetchFailed(Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }));
        case 'no-answer-in-time':
          throw new FetchError(`network timeout at: ${URL_}`, 'request-timeout');
        case 'abort-in-flight':
        case 'abort-during-body':
          // node-fetch reads the body inside z.request: an abort there is the same AbortError.
          controller.abort(abortReason());
          throw new NodeFetchAbortError('The user aborted a request.');
        default:
          throw fetchFailed(osError(f)!);
      }
    },
  } as unknown as ZObject;
  return await zapierTransport(z)(request).then(
    () => undefined,
    (e: unknown) => e,
  );
}

const NODE: INode = {
  id: '1',
  name: 'Email Verification',
  type: 'n8n-nodes-evf.emailVerification',
  typeVersion: 1,
  position: [0, 0],
  parameters: {},
};

/** n8n 2.8's httpRequestWithAuthentication: axios underneath, every failure rethrown as NodeApiError. */
async function viaN8n(f: Failure): Promise<unknown> {
  const { request, controller } = scenario(f);
  const axiosFailure = (signal?: AbortSignal): Error => {
    if (signal?.aborted) return new CanceledError();
    switch (f.at) {
      case 'closed-after-send':
        return AxiosError.from(Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }));
      case 'no-answer-in-time':
        return new AxiosError('timeout of 60000ms exceeded', AxiosError.ECONNABORTED);
      case 'abort-in-flight':
      case 'abort-during-body':
        controller.abort(abortReason());
        return new CanceledError();
      default:
        return AxiosError.from(osError(f)!);
    }
  };
  const context = {
    helpers: {
      httpRequestWithAuthentication: async (_type: string, options: { abortSignal?: AbortSignal }) => {
        throw new NodeApiError(NODE, axiosFailure(options.abortSignal) as never);
      },
    },
  } as unknown as RequestContext;
  return await n8nTransport(context)(request).then(
    () => undefined,
    (e: unknown) => e,
  );
}

const TRANSPORTS: Record<string, (f: Failure) => Promise<unknown>> = {
  fetch: viaFetch,
  zapier: viaZapier,
  n8n: viaN8n,
};

/** The verdict a transport reached: its TransportError says whether the request provably never left. */
function verdict(error: unknown): 'not sent' | 'maybe sent' | string {
  if (!(error instanceof TransportError)) return `not a TransportError: ${String(error)}`;
  return error.sent === false ? 'not sent' : 'maybe sent';
}

describe('every transport reaches the same not-sent / maybe-sent verdict on the same failure', () => {
  it('property: for any failure, fetch, z.request and n8n agree, and agree with what happened on the wire', async () => {
    await fc.assert(
      fc.asyncProperty(failure, async (f) => {
        const expected = NOT_SENT.has(f.at) ? 'not sent' : 'maybe sent';
        const got: Record<string, string> = {};
        for (const [name, via] of Object.entries(TRANSPORTS)) got[name] = verdict(await via(f));
        expect({ failure: f, got }).toEqual({
          failure: f,
          got: { fetch: expected, zapier: expected, n8n: expected },
        });
      }),
      { numRuns: 300 },
    );
  });

  // Every value each generator can give, once, so no code is left to chance.
  const every: Failure[] = [
    ...DNS.map((code) => ({ at: 'dns' as const, code })),
    ...CONNECT.map((code) => ({ at: 'connect' as const, code })),
    ...TLS.map((code) => ({ at: 'tls' as const, code })),
    ...AFTER_SEND.flatMap((code) =>
      (['read', 'write'] as const).map((syscall) => ({ at: 'after-send' as const, code, syscall })),
    ),
    { at: 'closed-after-send' },
    { at: 'no-answer-in-time' },
    { at: 'abort-before' },
    { at: 'abort-in-flight' },
    { at: 'abort-during-body' },
  ];
  it.each(every.map((f) => [JSON.stringify(f), f] as const))('%s', async (_name, f) => {
    const expected = NOT_SENT.has(f.at) ? 'not sent' : 'maybe sent';
    for (const [name, via] of Object.entries(TRANSPORTS))
      expect([name, verdict(await via(f))]).toEqual([name, expected]);
  });
});

describe("undici's own failures (fetch alone has them)", () => {
  const cases: Array<[string, () => Error, 'not sent' | 'maybe sent']> = [
    ['connect timeout', () => new undici.ConnectTimeoutError(), 'not sent'],
    [
      'invalid argument, refused before dispatch',
      () => new undici.InvalidArgumentError('bad header'),
      'not sent',
    ],
    ['client destroyed before dispatch', () => new undici.ClientDestroyedError(), 'not sent'],
    ['client closed before dispatch', () => new undici.ClientClosedError(), 'not sent'],
    ['not supported', () => new undici.NotSupportedError('h2c'), 'not sent'],
    ['no upstream in a balanced pool', () => new undici.BalancedPoolMissingUpstreamError(), 'not sent'],
    ['TLS to the proxy failed', () => new undici.SecureProxyConnectionError(new Error('tls')), 'not sent'],
    ['socket closed by the other side', () => new undici.SocketError('other side closed'), 'maybe sent'],
    ['no headers in time', () => new undici.HeadersTimeoutError(), 'maybe sent'],
    ['body stalled', () => new undici.BodyTimeoutError(), 'maybe sent'],
    [
      'request body shorter than its length',
      () => new undici.RequestContentLengthMismatchError(),
      'maybe sent',
    ],
    [
      'response body shorter than its length',
      () => new undici.ResponseContentLengthMismatchError(),
      'maybe sent',
    ],
    ['response over the size limit', () => new undici.ResponseExceededMaxSizeError(), 'maybe sent'],
    ['aborted by undici', () => new undici.RequestAbortedError(), 'maybe sent'],
    ['informational', () => new undici.InformationalError('reset'), 'maybe sent'],
    [
      'unparsable answer',
      () => Object.assign(new Error('Parse Error: Invalid status code'), { code: 'HPE_INVALID_STATUS' }),
      'maybe sent',
    ],
    ['an error nobody documents', () => new Error('something else'), 'maybe sent'],
  ];
  it.each(cases)('%s: %s', async (_name, make, expected) => {
    const spy = jest
      .spyOn(globalThis, 'fetch')
      .mockRejectedValue(new TypeError('fetch failed', { cause: make() }));
    try {
      const error = await fetchTransport({
        method: 'POST',
        url: URL_,
        headers: {},
        body: '{}',
        timeoutMs: 60_000,
      }).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(verdict(error)).toBe(expected);
    } finally {
      spy.mockRestore();
    }
  });
});
