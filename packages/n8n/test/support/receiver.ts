/**
 * A plain HTTP receiver on loopback that keeps every delivery byte for byte, so tests can hand the
 * exact raw body and headers the sandbox sent to a node's webhook method.
 */
/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals -- test code, never packed: files ships dist only */
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Delivery {
	method: string;
	url: string;
	headers: Record<string, string>;
	rawBody: string;
}

export interface Receiver {
	url: string;
	deliveries: Delivery[];
	/** The first delivery not handed out yet that matches, waiting for one if none has arrived. */
	next(timeoutMs?: number, match?: (delivery: Delivery) => boolean): Promise<Delivery>;
	close(): Promise<void>;
}

export async function startReceiver({ status = 200 }: { status?: number } = {}): Promise<Receiver> {
	const deliveries: Delivery[] = [];
	const taken = new Set<Delivery>();
	const waiters: Array<() => void> = [];
	const server = http.createServer((req, res) => {
		const chunks: Buffer[] = [];
		req.on('data', (chunk) => chunks.push(chunk));
		req.on('end', () => {
			const headers: Record<string, string> = {};
			for (const [key, value] of Object.entries(req.headers))
				headers[key] = Array.isArray(value) ? value.join(',') : (value ?? '');
			deliveries.push({
				method: req.method ?? '',
				url: req.url ?? '',
				headers,
				rawBody: Buffer.concat(chunks).toString('utf8'),
			});
			res.writeHead(status, { 'content-type': 'application/json' });
			res.end('{"ok":true}');
			for (const waiter of waiters.splice(0)) waiter();
		});
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as AddressInfo;
	return {
		url: `http://127.0.0.1:${port}`,
		deliveries,
		/**
		 * The first delivery not handed out yet that matches, whether it arrived before this call or
		 * arrives later: a fast job can be delivered before the test gets to ask for it, and an earlier
		 * job's repeated delivery must not be taken for this one.
		 */
		async next(timeoutMs = 10_000, match = () => true) {
			const started = Date.now();
			for (;;) {
				const found = deliveries.find((d) => !taken.has(d) && match(d));
				if (found) {
					taken.add(found);
					return found;
				}
				if (Date.now() - started > timeoutMs) throw new Error('no delivery arrived in time');
				await new Promise<void>((resolve) => {
					waiters.push(resolve);
					setTimeout(resolve, 100);
				});
			}
		},
		close: () => new Promise<void>((resolve) => server.close(() => resolve())),
	};
}
