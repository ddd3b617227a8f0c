/**
 * The adapter kit's small rules, as each platform hands them their inputs: headers from a fetch Headers,
 * node-fetch's Headers or axios' object with arrays; the base-URL verdict with and without the loopback
 * exception; an error's status, the service's reason and the field at fault.
 */
import { Headers as NodeFetchHeaders } from 'node-fetch';
import {
  AuthenticationError,
  InputError,
  UnprocessableError,
  baseUrlProblem,
  errorField,
  errorReason,
  errorStatus,
  lowerCaseHeaders,
  transportFailure,
} from '@evf/client';

describe('lowerCaseHeaders', () => {
  it('reads a fetch Headers, node-fetch Headers and a plain object with arrays the same way', () => {
    const want = { 'content-type': 'application/json', 'x-ratelimit-reset': '30', 'set-cookie': 'a=1, b=2' };
    const fetchHeaders = new Headers([
      ['Content-Type', 'application/json'],
      ['X-RateLimit-Reset', '30'],
      ['Set-Cookie', 'a=1'],
      ['Set-Cookie', 'b=2'],
    ]);
    const nodeFetch = new NodeFetchHeaders([
      ['Content-Type', 'application/json'],
      ['X-RateLimit-Reset', '30'],
      ['Set-Cookie', 'a=1'],
      ['Set-Cookie', 'b=2'],
    ]);
    const axiosLike = {
      'Content-Type': 'application/json',
      'X-RateLimit-Reset': 30,
      'set-cookie': ['a=1', 'b=2'],
      absent: undefined,
    };
    expect(lowerCaseHeaders(fetchHeaders)).toEqual(want);
    expect(lowerCaseHeaders(nodeFetch as unknown as Headers)).toEqual(want);
    expect(lowerCaseHeaders(axiosLike)).toEqual(want);
    expect(lowerCaseHeaders(undefined)).toEqual({});
  });
});

describe('baseUrlProblem', () => {
  it.each([
    [undefined, 'required'],
    ['  ', 'required'],
    ['api.example.com/api', 'syntax'],
    ['https://u:p@api.example.com/api', 'credentials'],
    ['http://api.example.com/api', 'https'],
    ['ftp://api.example.com/api', 'https'],
  ])('%s breaks the %s rule', (url, rule) => {
    expect(baseUrlProblem(url)?.rule).toBe(rule);
  });

  it('allows plain http to loopback for the sandbox, and not when a release says so', () => {
    for (const url of ['http://127.0.0.1:8787/api', 'http://localhost/api', 'http://[::1]:1/api']) {
      expect(baseUrlProblem(url)).toBeUndefined();
      expect(baseUrlProblem(url, { allowLoopbackHttp: false })).toEqual({
        rule: 'https',
        got: url.slice(0, url.indexOf('/api')),
      });
    }
    expect(baseUrlProblem('https://api.example.com/api', { allowLoopbackHttp: false })).toBeUndefined();
  });
});

describe('errorStatus, errorReason, errorField', () => {
  const init = { headers: {}, method: 'POST', path: '/v1/verify/bulk' };
  it('read an answer: its status, the service words, the field its body names', () => {
    const refused = new UnprocessableError(
      { ...init, status: 422, body: { error: { message: '  name is too long ', field: 'name' } } },
      false,
    );
    expect([errorStatus(refused), errorReason(refused), errorField(refused)]).toEqual([
      422,
      'name is too long',
      'name',
    ]);
    const flat = new UnprocessableError(
      { ...init, status: 422, body: { message: 'bad', field: 'emails' } },
      false,
    );
    expect(errorField(flat)).toBe('emails');
    const bare = new AuthenticationError({ ...init, status: 401, body: '' });
    expect([errorStatus(bare), errorReason(bare), errorField(bare)]).toEqual([401, undefined, undefined]);
  });

  it('read the client own input errors, and nothing from other errors', () => {
    expect([
      errorStatus(new InputError('webhook_url', 'https', 'x')),
      errorField(new InputError('webhook_url', 'https', 'x')),
    ]).toEqual([undefined, 'webhook_url']);
    expect([
      errorStatus(new Error('x')),
      errorReason(new Error('x')),
      errorField({ body: { field: 'forged' } }),
    ]).toEqual([undefined, undefined, undefined]);
  });
});

describe('transportFailure reads a syscall back from a message that quotes it', () => {
  it('as words, so a code with pattern characters neither throws nor matches as a pattern', () => {
    expect(
      transportFailure({ code: 'E(X', message: 'request failed, reason: connect E(X 203.0.113.7:443' }).sent,
    ).toBe(false);
    expect(transportFailure({ code: 'E.X', message: 'reason: read EAX 203.0.113.7:443' }).sent).toBe(
      'unknown',
    );
    expect(
      transportFailure({ code: 'ECONNRESET', message: 'request failed, reason: read ECONNRESET' }).sent,
    ).toBe('unknown');
    expect(
      transportFailure({
        code: 'EHOSTUNREACH',
        message: 'request failed, reason: connect EHOSTUNREACH 203.0.113.7:443',
      }).sent,
    ).toBe(false);
    expect(
      transportFailure({ code: 'EHOSTUNREACH', message: 'request failed, reason: write EHOSTUNREACH' }).sent,
    ).toBe('unknown');
  });
});
