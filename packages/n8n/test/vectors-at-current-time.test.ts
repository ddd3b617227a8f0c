/**
 * The real-n8n suite sends the shared signature vectors to n8n at the current time instead of faking
 * n8n's clock. This checks that moving a vector to another clock keeps its outcome: every vector,
 * moved, is accepted or refused by the client's own verification exactly as the vector says, also
 * when a few seconds pass between signing and checking (a loaded machine).
 */
import { verifyWebhook } from '@evf/client';
import vectors from '../../../shared/test-vectors/webhook-vectors.json';
import { atCurrentTime, type Vector } from './support/vectors';

const all = vectors as unknown as Vector[];

function outcome(vector: Vector, checkedAtS: number): 'accept' | 'reject' {
	try {
		verifyWebhook({
			rawBody: vector.rawBody,
			headers: vector.headers,
			secrets: vector.secrets,
			now: () => checkedAtS * 1000,
		});
		return 'accept';
	} catch {
		return 'reject';
	}
}

describe('shared signature vectors moved to the current time', () => {
	const now = Math.floor(Date.now() / 1000);

	it.each(all.map((v) => [v.name, v] as const))('%s keeps its outcome', (_, vector) => {
		const moved = atCurrentTime(vector, now);
		expect(outcome(moved, now)).toBe(vector.expect);
		// Checked up to 4 s after signing, as n8n may on a busy machine.
		expect(outcome(moved, now + 4)).toBe(vector.expect);
		// Untouched at its own clock, it still has the vector's outcome (the fixed clock's control).
		expect(outcome(vector, vector.now)).toBe(vector.expect);
	});

	it('re-signs the good signatures for the new timestamp and leaves the broken ones as they were', () => {
		const original = all.find((v) => v.name === 'valid_completed')!;
		const good = atCurrentTime(original, now);
		const offset = Number(original.headers['X-Service-Timestamp']) - original.now;
		expect(good.headers['X-Service-Timestamp']).toBe(String(now + offset));
		expect(good.headers['X-Service-Signature']).not.toBe(original.headers['X-Service-Signature']);
		const wrong = all.find((v) => v.name === 'wrong_secret')!;
		expect(atCurrentTime(wrong, now).headers['X-Service-Signature']).toBe(
			wrong.headers['X-Service-Signature'],
		);
	});
});
