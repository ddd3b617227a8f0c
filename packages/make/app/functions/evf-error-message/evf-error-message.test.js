it('names the fix for each status', function () {
	assert.ok(/evf_/.test(evfErrorMessage(401, { error: { code: 'unauthorized', message: 'Invalid API key' } }, {})));
	assert.ok(/out of credits/.test(evfErrorMessage(402, {}, {})));
	assert.ok(/refunded/.test(evfErrorMessage(408, {}, {})));
	assert.ok(/1700000000/.test(evfErrorMessage(429, {}, { 'X-RateLimit-Reset': '1700000000' })));
	assert.ok(/after 30 seconds/.test(evfErrorMessage(503, {}, { 'retry-after': '30' })));
});

it('lists the addresses a 422 names, by item number', function () {
	var msg = evfErrorMessage(422, { error: { code: 'invalid_emails', message: 'bad', invalid_emails: [{ email: 'nope', index: 2, reason: 'no @' }] } }, {});
	assert.ok(msg.indexOf('"nope" (item 3: no @)') >= 0, msg);
	assert.ok(/charged nothing/.test(msg));
	var url = evfErrorMessage(422, { error: { field: 'webhook_url', rule: 'https' } }, {});
	assert.ok(/webhook_url/.test(url) && /https/.test(url));
});

it('copes with bodies of any shape', function () {
	assert.ok(/HTTP 500/.test(evfErrorMessage(500, 'upstream broke', {})));
	assert.ok(/HTTP 500/.test(evfErrorMessage(500, null, null)));
	assert.ok(/HTTP 418/.test(evfErrorMessage('418', [1, 2], undefined)));
});
