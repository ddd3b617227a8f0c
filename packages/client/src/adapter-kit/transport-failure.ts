/**
 * Which failures prove a request never left this machine. That is the one case a charged POST may be
 * sent again, so the rule lives here once and every transport (fetch, Zapier's z.request, n8n's
 * httpRequest) hands its library's error to it.
 *
 * The libraries wrap the operating system's error differently:
 * - Node's fetch (undici) rejects with `TypeError('fetch failed')` whose `cause` is undici's error or
 *   Node's system error (undici docs, "Errors"; Node docs, "fetch");
 * - node-fetch 2.7.0 (inside zapier-platform-core 19) throws a `FetchError` that keeps only the system
 *   error's `code` and its message, `request to <url> failed, reason: <system message>`, and marks
 *   timeouts with `type: 'request-timeout' | 'body-timeout'` (node-fetch lib/index.js, FetchError);
 * - n8n's httpRequestWithAuthentication throws a `NodeApiError` whose `cause` is axios's `AxiosError`,
 *   which copies the system error's `code` and keeps it as its `cause`; axios names its own timeout
 *   `ECONNABORTED` (or `ETIMEDOUT`) and a cancel `ERR_CANCELED` (axios lib/adapters/http.js).
 * Node's system errors carry `code` and `syscall`, and their message starts `<syscall> <code>` (Node
 * docs, "Class: SystemError"; lib/internal/errors.js, exceptionWithHostPort), which is how the syscall
 * is read back from node-fetch's message.
 *
 * A request is provably not sent when the failure happened before any byte of it was written:
 * - name resolution failed (the address was never known);
 * - the TCP connection was never made (`syscall: 'connect'`, or a code only `connect` gives);
 * - TLS refused the server before the handshake finished (a client writes application data only after
 *   its handshake completes and Node checks the certificate and the host name inside it);
 * - undici refused the request before dispatching it (bad argument, closed or destroyed client);
 * - the caller had already cancelled before the transport was called.
 * Everything else (a reset, a broken pipe, a timeout waiting for the answer, an abort in flight, a code
 * nobody documents) may have reached the service: `sent: 'unknown'`. Once the status line has arrived
 * the service had the request: `sent: true`.
 */
import { TransportError, type TransportFailure } from '../core/transport';

/** What a transport knows about a failure besides the error itself. */
export interface FailureContext {
  /** The caller's signal, as the transport was given it. */
  signal?: AbortSignal;
  /** The signal was already aborted when the transport was called: the library sends nothing then. */
  abortedBeforeSending?: boolean;
  /** The transport's own per-attempt timer ran out. */
  timedOut?: boolean;
  /** The status line and headers had arrived; the body did not finish. */
  answerStarted?: boolean;
}

interface FailureVerdict {
  kind: TransportFailure;
  /** `false` only when the request provably never left; `true` once an answer had started. */
  sent: boolean | 'unknown';
  /** The most specific error code found (system, undici, TLS, axios), when any. */
  code?: string;
}

/**
 * Name resolution failures: getaddrinfo's EAI_* codes (Node docs, "dns": error codes) and c-ares'
 * codes for the dns.resolve* family (dns.NODATA ... dns.CANCELLED). Node reports getaddrinfo's
 * EAI_NONAME and EAI_NODATA as ENOTFOUND.
 */
const DNS_CODES = new Set([
  'ENOTFOUND',
  'EAI_AGAIN',
  'EAI_FAIL',
  'EAI_NONAME',
  'EAI_NODATA',
  'EAI_ADDRFAMILY',
  'EAI_FAMILY',
  'EAI_SERVICE',
  'EAI_SOCKTYPE',
  'EAI_BADFLAGS',
  'EAI_MEMORY',
  'EAI_SYSTEM',
  'EAI_OVERFLOW',
  'ENODATA',
  'EFORMERR',
  'ESERVFAIL',
  'ENOTIMP',
  'EREFUSED',
  'EBADQUERY',
  'EBADNAME',
  'EBADFAMILY',
  'EBADRESP',
  'ETIMEOUT',
  'EOF',
  'EFILE',
  'ENOMEM',
  'EDESTRUCTION',
  'EBADSTR',
  'EBADFLAGS',
  'ENONAME',
  'EBADHINTS',
  'ENOTINITIALIZED',
  'ELOADIPHLPAPI',
  'EADDRGETNETWORKPARAMS',
  'ECANCELLED',
]);

/** System calls that only look a name up. */
const DNS_SYSCALLS = /^(getaddrinfo|getnameinfo|query[A-Za-z]*|lookup[A-Za-z]*)$/;

/**
 * Codes only the connect step gives: a refused connection (Node docs, "Common system errors":
 * ECONNREFUSED "no connection could be made"). Others (EHOSTUNREACH, ETIMEDOUT, ECONNRESET) also
 * end live connections, so they prove nothing without `syscall: 'connect'`.
 */
const CONNECT_ONLY_CODES = new Set(['ECONNREFUSED']);

/**
 * No route to the address, or no local address to send from: connect(2) returns these before a SYN
 * leaves (Linux man page connect(2)). A live connection can end with some of them too, but then the
 * error names `read` or `write` as its syscall, so they prove nothing sent only without another syscall.
 * (nock's "disallowed net connect" is an ENETUNREACH with no syscall: refused before any socket.)
 */
const ROUTE_CODES = new Set([
  'ENETUNREACH',
  'EHOSTUNREACH',
  'ENETDOWN',
  'EHOSTDOWN',
  'EADDRNOTAVAIL',
  'EAFNOSUPPORT',
]);

/**
 * fetch refuses a URL whose port the Fetch standard blocks ("Port blocking": 9, 25, 6000 ...) before
 * it opens any connection; undici says so as a network error whose cause reads "bad port".
 */
const FETCH_BLOCKED = 'bad port';

/**
 * undici errors raised before the request is dispatched or while connecting (undici docs, "Errors"):
 * the connect timeout, a bad argument, a closed or destroyed client or pool, an unsupported feature,
 * no upstream or too many origins in a pool, and a failed TLS connection to a proxy.
 */
const UNDICI_NOT_SENT = new Set([
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_INVALID_ARG',
  'UND_ERR_INVALID_RETURN_VALUE',
  'UND_ERR_DESTROYED',
  'UND_ERR_CLOSED',
  'UND_ERR_NOT_SUPPORTED',
  'UND_ERR_BPL_MISSING_UPSTREAM',
  'UND_ERR_MAX_ORIGINS_REACHED',
  'UND_ERR_PRX_TLS',
]);

/**
 * TLS failures inside the handshake: OpenSSL's certificate verification codes as Node lists them
 * (Node docs, "tls": X509 certificate error codes), Node's host name check and handshake timeout
 * (ERR_TLS_CERT_ALTNAME_INVALID, ERR_TLS_HANDSHAKE_TIMEOUT), and OpenSSL's protocol negotiation
 * failures. Alerts that can come after the handshake (internal error, a TLS 1.3 certificate request)
 * are not here.
 */
const TLS_HANDSHAKE_CODES = new Set([
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_CRL',
  'UNABLE_TO_DECRYPT_CERT_SIGNATURE',
  'UNABLE_TO_DECRYPT_CRL_SIGNATURE',
  'UNABLE_TO_DECODE_ISSUER_PUBLIC_KEY',
  'CERT_SIGNATURE_FAILURE',
  'CRL_SIGNATURE_FAILURE',
  'CERT_NOT_YET_VALID',
  'CERT_HAS_EXPIRED',
  'CRL_NOT_YET_VALID',
  'CRL_HAS_EXPIRED',
  'ERROR_IN_CERT_NOT_BEFORE_FIELD',
  'ERROR_IN_CERT_NOT_AFTER_FIELD',
  'ERROR_IN_CRL_LAST_UPDATE_FIELD',
  'ERROR_IN_CRL_NEXT_UPDATE_FIELD',
  'OUT_OF_MEM',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'CERT_CHAIN_TOO_LONG',
  'CERT_REVOKED',
  'INVALID_CA',
  'PATH_LENGTH_EXCEEDED',
  'INVALID_PURPOSE',
  'CERT_UNTRUSTED',
  'CERT_REJECTED',
  'HOSTNAME_MISMATCH',
  'ERR_TLS_CERT_ALTNAME_INVALID',
  'ERR_TLS_HANDSHAKE_TIMEOUT',
  'ERR_SSL_WRONG_VERSION_NUMBER',
  'ERR_SSL_UNSUPPORTED_PROTOCOL',
  'ERR_SSL_NO_PROTOCOLS_AVAILABLE',
  'ERR_SSL_SSLV3_ALERT_HANDSHAKE_FAILURE',
  'ERR_SSL_TLSV1_ALERT_PROTOCOL_VERSION',
  'ERR_SSL_TLSV1_ALERT_UNKNOWN_CA',
  'ERR_SSL_TLSV1_UNRECOGNIZED_NAME',
  'ERR_SSL_UNSAFE_LEGACY_RENEGOTIATION_DISABLED',
]);

/** Failures that mean "no answer in time" (the request may still be in the service's hands). */
const TIMEOUT_CODES = new Set([
  'ETIMEDOUT',
  'ESOCKETTIMEDOUT',
  'ECONNABORTED',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'UND_ERR_CONNECT_TIMEOUT',
]);

/** A cancel from the caller's signal, as each library names it. */
const ABORT_CODES = new Set(['ABORT_ERR', 'ERR_CANCELED', 'UND_ERR_ABORTED']);

interface Link {
  code?: string;
  syscall?: string;
  name?: string;
  type?: string;
  message?: string;
  errors?: unknown[];
}

function read(error: unknown): Link {
  if (!error || typeof error !== 'object') return {};
  const e = error as Record<string, unknown>;
  const str = (v: unknown) => (typeof v === 'string' && v !== '' ? v : undefined);
  return {
    code: str(e.code),
    syscall: str(e.syscall),
    name: str(e.name),
    type: str(e.type),
    message: str(e.message),
    errors: Array.isArray(e.errors) ? e.errors : undefined,
  };
}

/** The error and its causes, outermost first (a cycle or a very deep chain stops the walk). */
function chain(error: unknown): unknown[] {
  const out: unknown[] = [];
  let e: unknown = error;
  while (e && typeof e === 'object' && out.length < 8 && !out.includes(e)) {
    out.push(e);
    e = (e as { cause?: unknown }).cause;
  }
  return out;
}

/** The syscall of a system error, or read back from a message that quotes one (node-fetch keeps only that). */
function syscallOf(link: Link): string | undefined {
  if (link.syscall) return link.syscall;
  if (!link.code || !link.message) return undefined;
  // "<syscall> <code>", read as words: a code is matched as text, never as a pattern.
  const words = link.message.split(/\s+/);
  const at = words.indexOf(link.code);
  return at > 0 && /^[A-Za-z]+$/.test(words[at - 1]!) ? words[at - 1] : undefined;
}

/** Whether this one error, on its own, proves nothing was written. */
function provesNotSent(link: Link): boolean {
  const code = link.code;
  const syscall = syscallOf(link);
  if (syscall && DNS_SYSCALLS.test(syscall)) return true;
  if (syscall === 'connect') return true;
  if (!code) return link.message === FETCH_BLOCKED;
  if (ROUTE_CODES.has(code)) return syscall === undefined;
  return (
    DNS_CODES.has(code) ||
    CONNECT_ONLY_CODES.has(code) ||
    UNDICI_NOT_SENT.has(code) ||
    TLS_HANDSHAKE_CODES.has(code)
  );
}

/**
 * Several connect attempts at once (Node's happy eyeballs, `autoSelectFamily`) fail as one
 * AggregateError: nothing was sent when no attempt got as far as sending.
 */
function aggregateNotSent(link: Link): boolean {
  if (!link.errors || link.errors.length === 0) return false;
  return link.errors.every((inner) =>
    chain(inner).some((e) => provesNotSent(read(e)) || aggregateNotSent(read(e))),
  );
}

/** Decides what a failed attempt means: its kind for the caller, and whether it may have been sent. */
function classifyTransportFailure(error: unknown, context: FailureContext = {}): FailureVerdict {
  const links = chain(error).map(read);
  const coded = links.filter((l) => l.code !== undefined);
  const code = coded.length ? coded[coded.length - 1].code : undefined;
  const withCode = code === undefined ? {} : { code };
  const callerAborted = context.signal?.aborted === true;
  const timedOut =
    context.timedOut === true ||
    links.some(
      (l) =>
        (l.code !== undefined && TIMEOUT_CODES.has(l.code)) ||
        l.type === 'request-timeout' ||
        l.type === 'body-timeout',
    );

  if (context.abortedBeforeSending) return { kind: 'aborted', sent: false, ...withCode };
  if (context.answerStarted || links.some((l) => l.type === 'body-timeout')) {
    return { kind: callerAborted ? 'aborted' : timedOut ? 'timeout' : 'network', sent: true, ...withCode };
  }
  if (links.some((l) => provesNotSent(l) || aggregateNotSent(l))) {
    return { kind: 'connect', sent: false, ...withCode };
  }
  const aborted =
    callerAborted ||
    links.some(
      (l) =>
        l.name === 'AbortError' || l.type === 'aborted' || (l.code !== undefined && ABORT_CODES.has(l.code)),
    );
  // A timer of the transport's own is an abort too, to the library: the timer decides the kind.
  if (timedOut && !callerAborted) return { kind: 'timeout', sent: 'unknown', ...withCode };
  if (aborted) return { kind: 'aborted', sent: 'unknown', ...withCode };
  return { kind: 'network', sent: 'unknown', ...withCode };
}

const WORDS: Record<TransportFailure, string> = {
  connect: 'the connection could not be made',
  timeout: 'no answer came in time',
  aborted: 'the request was cancelled',
  network: 'the connection failed',
};

/** What a snapshot of the request a transport takes before it sends (see FailureContext). */
export function failureContextOf(request: { signal?: AbortSignal }): FailureContext {
  return { signal: request.signal, abortedBeforeSending: request.signal?.aborted === true };
}

/** The TransportError a transport throws for a failed attempt, decided by classifyTransportFailure. */
export function transportFailure(error: unknown, context: FailureContext = {}): TransportError {
  const verdict = classifyTransportFailure(error, context);
  const words = context.answerStarted ? 'the answer was cut short' : WORDS[verdict.kind];
  return new TransportError(verdict.code ? `${words} (${verdict.code})` : words, {
    kind: verdict.kind,
    sent: verdict.sent,
    cause: error,
  });
}
