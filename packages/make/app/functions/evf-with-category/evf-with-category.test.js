it('keeps every field of the row and adds the three routing fields', function () {
	var row = { email: 'a@example.com', status: 'invalid', valid: false, score: 0.4, reason: 'r', details: { primary_label: 'catch_all', tags: [] } };
	var out = evfWithCategory(row);
	assert.strictEqual(out.email, 'a@example.com');
	assert.strictEqual(out.status, 'invalid');
	assert.deepStrictEqual(out.details, row.details);
	assert.strictEqual(out.category, 'Catch-All');
	assert.strictEqual(out.group, 'risky');
	assert.strictEqual(out.safe_to_send, false);
});

it('never decides from the row status', function () {
	var out = evfWithCategory({ status: 'valid', details: { primary_label: 'invalid', tags: [] } });
	assert.strictEqual(out.group, 'invalid');
});

it('does not change the row it was given', function () {
	var row = { details: { primary_label: 'valid', tags: [] } };
	evfWithCategory(row);
	assert.strictEqual(row.category, undefined);
});
