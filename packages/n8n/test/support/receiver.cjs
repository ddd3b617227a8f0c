'use strict';
/**
 * A plain HTTP receiver on loopback that keeps every delivery byte for byte, so tests can hand the
 * exact raw body and headers the sandbox sent to a node's webhook method.
 * (Node's http module lives here, in CommonJS, because n8n's lint forbids it in the package's TypeScript.)
 */
const http = require('node:http');

async function startReceiver({ status = 200 } = {}) {
	const deliveries = [];
	const taken = new Set();
	const waiters = [];
	const server = http.createServer((req, res) => {
		const chunks = [];
		req.on('data', (chunk) => chunks.push(chunk));
		req.on('end', () => {
			const headers = {};
			for (const [key, value] of Object.entries(req.headers))
				headers[key] = Array.isArray(value) ? value.join(',') : value;
			deliveries.push({
				method: req.method,
				url: req.url,
				headers,
				rawBody: Buffer.concat(chunks).toString('utf8'),
			});
			res.writeHead(status, { 'content-type': 'application/json' });
			res.end('{"ok":true}');
			for (const waiter of waiters.splice(0)) waiter();
		});
	});
	await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address();
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
				await new Promise((resolve) => {
					waiters.push(resolve);
					setTimeout(resolve, 100);
				});
			}
		},
		close: () => new Promise((resolve) => server.close(resolve)),
	};
}

module.exports = { startReceiver };
