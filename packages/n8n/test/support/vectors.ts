/**
 * The shared webhook signature vectors moved to the real clock. Apart from workflows.ts, which loads
 * the n8n harness, so the unit suite of this rule starts nothing.
 */
import { signWebhook } from '@evf/client';

export interface Vector {
	name: string;
	secrets: string[];
	headers: Record<string, string>;
	rawBody: string;
	now: number;
	expect: 'accept' | 'reject';
}

/** Seconds inside or beyond the 300 s window at which the boundary vectors are re-sent on a real clock. */
const BOUNDARY_MARGIN_S = 5;

function headerName(headers: Record<string, string>, lower: string): string | undefined {
	return Object.keys(headers).find((key) => key.toLowerCase() === lower);
}

/**
 * A shared signature vector moved to the real clock, for a receiver that checks timestamps against
 * its own now (real n8n, without faking its time). The timestamp keeps its distance from the vector's
 * receiver clock, and every `v1=` signature made with one of the vector's secrets is made again for the
 * new timestamp and the same bytes; anything the vector broke on purpose (a wrong secret, a tampered
 * body or timestamp, a malformed header) stays broken. The exact 300 s boundaries run at their fixed
 * clock in trigger.sandbox.test.ts; here a second can tick between signing and checking, so a boundary that
 * must pass moves 5 s inside and one that must fail 5 s further out.
 */
export function atCurrentTime(vector: Vector, nowS: number): Vector {
	const headers = { ...vector.headers };
	const tsKey = headerName(headers, 'x-service-timestamp');
	const sigKey = headerName(headers, 'x-service-signature');
	const oldTs = tsKey ? headers[tsKey] : undefined;
	if (!tsKey || !oldTs || !/^\d+$/.test(oldTs)) return { ...vector, now: nowS };
	let offset = Number(oldTs) - vector.now;
	if (Math.abs(Math.abs(offset) - 300) <= BOUNDARY_MARGIN_S) {
		const inward = vector.expect === 'accept';
		offset = Math.sign(offset) * (inward ? 300 - BOUNDARY_MARGIN_S : 300 + BOUNDARY_MARGIN_S + 1);
	}
	const newTs = nowS + offset;
	headers[tsKey] = String(newTs);
	if (sigKey) {
		headers[sigKey] = headers[sigKey]
			.split(',')
			.map((part) => {
				const trimmed = part.trim();
				const signer = vector.secrets.find(
					(secret) =>
						signWebhook({ rawBody: vector.rawBody, secret, timestamp: Number(oldTs) }) === trimmed,
				);
				if (!signer) return part;
				const lead = part.slice(0, part.indexOf(trimmed));
				return `${lead}${signWebhook({ rawBody: vector.rawBody, secret: signer, timestamp: newTs })}`;
			})
			.join(',');
	}
	return { ...vector, headers, now: nowS };
}
