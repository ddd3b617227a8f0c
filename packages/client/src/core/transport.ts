import { EvfError } from '../errors';

export type HttpMethod = 'GET' | 'POST' | 'DELETE';

export interface TransportRequest {
  method: HttpMethod;
  url: string;
  headers: Record<string, string>;
  body?: string;
  timeoutMs: number;
  signal?: AbortSignal;
}

export interface TransportResponse {
  status: number;
  /** Header names in lower case. */
  headers: Record<string, string>;
  body: string;
}

/**
 * Sends one request. HTTP error statuses are answers, returned like any other; only a request that got
 * no answer throws, as a TransportError.
 */
export type Transport = (request: TransportRequest) => Promise<TransportResponse>;

export type TransportFailure = 'connect' | 'timeout' | 'aborted' | 'network';

export class TransportError extends EvfError {
  readonly kind: TransportFailure;
  /**
   * Whether the request may have reached the server. `false` only when it provably did not (refused
   * connection, failed DNS): that is the one case a POST may be sent again.
   */
  readonly sent: boolean | 'unknown';
  constructor(message: string, init: { kind: TransportFailure; sent: boolean | 'unknown'; cause?: unknown }) {
    super(message, { cause: init.cause });
    this.kind = init.kind;
    this.sent = init.sent;
  }
}
