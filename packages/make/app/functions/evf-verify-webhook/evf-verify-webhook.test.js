// Expected signatures were computed with `openssl dgst -sha256 -hmac`, independently of this code.
var body = {
	event: 'job.completed', job_id: 'job_123', status: 'completed', total_emails: 2, processed_emails: 2,
	verdicts: { valid: 1, invalid: 1, catch_all: 0, risky: 0, role_based: 0, disposable: 0, unknown: 0 },
	created_at: '2026-01-01T00:00:00Z', completed_at: '2026-01-01T00:01:00Z', results_url: '/v1/jobs/job_123/results'
};
var ts = '1767225660';
var good = 'v1=07a07037978ae885aada86de68cedf0483a2d42bdca7b23b04384ef8fa5bbde4';
var otherSecret = 'v1=e53c1dbebe13175a7fd0aeac8fd646ea55bdd3c2f48bb560e167e510fa359f60';
var now = new Date(1767225660 * 1000 + 5000);
function headers(sig, stamp) { return { 'x-service-signature': sig, 'x-service-timestamp': stamp === undefined ? ts : stamp }; }

it('accepts a genuine delivery', function () {
	assert.strictEqual(evfVerifyWebhook(headers(good), body, 'whsec_test_secret', now), 'ok');
});

it('accepts any of several secrets (rotation) and any of several signatures', function () {
	assert.strictEqual(evfVerifyWebhook(headers(good), body, 'whsec_new, whsec_test_secret', now), 'ok');
	assert.strictEqual(evfVerifyWebhook(headers(otherSecret + ',' + good), body, 'whsec_test_secret', now), 'ok');
});

it('refuses a changed body, a changed timestamp and another secret', function () {
	var tampered = JSON.parse(JSON.stringify(body));
	tampered.total_emails = 3;
	assert.strictEqual(evfVerifyWebhook(headers(good), tampered, 'whsec_test_secret', now), 'signature_mismatch');
	assert.strictEqual(evfVerifyWebhook(headers(good, '1767225661'), body, 'whsec_test_secret', now), 'signature_mismatch');
	assert.strictEqual(evfVerifyWebhook(headers(otherSecret), body, 'whsec_test_secret', now), 'signature_mismatch');
});

it('refuses stale and future timestamps beyond 300 seconds', function () {
	assert.strictEqual(evfVerifyWebhook(headers(good), body, 'whsec_test_secret', new Date((1767225660 + 301) * 1000)), 'timestamp_too_old');
	assert.strictEqual(evfVerifyWebhook(headers(good), body, 'whsec_test_secret', new Date((1767225660 - 301) * 1000)), 'timestamp_in_future');
});

it('refuses missing or malformed headers, upper-case hex and a missing secret', function () {
	assert.strictEqual(evfVerifyWebhook({ 'x-service-timestamp': ts }, body, 'whsec_test_secret', now), 'missing_signature');
	assert.strictEqual(evfVerifyWebhook(headers(good.toUpperCase().replace('V1=', 'v1=')), body, 'whsec_test_secret', now), 'malformed_signature');
	assert.strictEqual(evfVerifyWebhook(headers('sha256=abc'), body, 'whsec_test_secret', now), 'malformed_signature');
	assert.strictEqual(evfVerifyWebhook({ 'x-service-signature': good }, body, 'whsec_test_secret', now), 'missing_timestamp');
	// Present but empty is malformed, not missing (the shared vectors' rule).
	assert.strictEqual(evfVerifyWebhook(headers('', ts), body, 'whsec_test_secret', now), 'malformed_signature');
	assert.strictEqual(evfVerifyWebhook(headers(good, ''), body, 'whsec_test_secret', now), 'malformed_timestamp');
	assert.strictEqual(evfVerifyWebhook(headers(good, '17e8'), body, 'whsec_test_secret', now), 'malformed_timestamp');
	assert.strictEqual(evfVerifyWebhook(headers(good), body, '', now), 'no_secret');
});
