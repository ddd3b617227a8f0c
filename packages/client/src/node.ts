/**
 * @evf/client/node: the client with Node's defaults (global fetch, timers, DNS). Not for bundling into
 * n8n nodes, whose scanner forbids timers: those pass their own runtime to EmailVerificationClient.
 */
import { EmailVerificationClient, type ClientOptions } from './client';
import { fetchTransport } from './node/fetch-transport';
import { nodeRuntime, acceleratedRuntime } from './node/runtime';

export * from './index';
export { fetchTransport, nodeRuntime, acceleratedRuntime };

/** Where `npm start` serves the sandbox: the default when nothing else is configured. */
export const DEFAULT_SANDBOX_URL = 'http://127.0.0.1:8787/api';

export function createClient(options: Partial<ClientOptions> & { apiKey: string }): EmailVerificationClient {
  return new EmailVerificationClient({
    baseUrl: DEFAULT_SANDBOX_URL,
    transport: fetchTransport,
    runtime: nodeRuntime,
    ...options,
  });
}
