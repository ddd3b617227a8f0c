/**
 * @evf/client/node: the client with Node's defaults (global fetch, timers, DNS). Not for bundling into
 * n8n nodes, whose scanner forbids timers: those pass their own runtime to EmailVerificationClient.
 */
import { EmailVerificationClient, type ClientOptions } from '../client';
import { fetchTransport } from './fetch-transport';
import { nodeRuntime, acceleratedRuntime } from './runtime';

export * from '../index';
export { fetchTransport, nodeRuntime, acceleratedRuntime };

/**
 * The client with Node's transport and runtime. The base URL is `options.baseUrl`, else the
 * EVF_BASE_URL environment variable; with neither, an InputError says so (the key is never sent to a
 * guessed address).
 */
export function createClient(options: Partial<ClientOptions> & { apiKey: string }): EmailVerificationClient {
  const fromEnv = process.env.EVF_BASE_URL?.trim();
  return new EmailVerificationClient({
    transport: fetchTransport,
    runtime: nodeRuntime,
    ...options,
    // Empty when neither is set: the client then says no base URL was given.
    baseUrl: options.baseUrl ?? fromEnv ?? '',
  });
}
