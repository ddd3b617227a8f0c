// Make's IML test runner: `it`, `assert` and `iml` are globals; the tested function is in scope by name.
it('tags win over primary_label, in the spec order', function () {
	var r = evfCategorize({ primary_label: 'valid', tags: [{ label: 'role', confidence: 0.9 }, { label: 'spam_trap', confidence: 0.8 }] });
	assert.deepStrictEqual(r, { category: 'Spam Trap', group: 'invalid', safe_to_send: false });
	assert.strictEqual(evfCategorize({ primary_label: 'valid', tags: [{ label: 'disposable', confidence: 1 }] }).category, 'Disposable');
	assert.strictEqual(evfCategorize({ primary_label: 'valid', tags: [{ label: 'role', confidence: 1 }] }).group, 'risky');
});

it('only a plain valid address is safe to send', function () {
	assert.deepStrictEqual(evfCategorize({ primary_label: 'valid', tags: [] }), { category: 'Valid', group: 'safe_to_send', safe_to_send: true });
	assert.strictEqual(evfCategorize({ primary_label: 'catch_all', tags: [] }).safe_to_send, false);
	assert.strictEqual(evfCategorize({ primary_label: 'inbox_full' }).category, 'Inbox Full');
});

it('invalid and disabled share a category; unknown and not_verified are refunded', function () {
	assert.strictEqual(evfCategorize({ primary_label: 'disabled' }).category, 'Invalid / Disabled / No Mail Server');
	assert.strictEqual(evfCategorize({ primary_label: 'invalid' }).group, 'invalid');
	assert.strictEqual(evfCategorize({ primary_label: 'not_verified' }).category, 'Unknown / Not Verified (refunded)');
});

it('missing, odd or unheard-of input is held back as risky, never sent', function () {
	assert.strictEqual(evfCategorize(undefined).group, 'risky');
	assert.strictEqual(evfCategorize({ primary_label: 'toString' }).group, 'risky');
	assert.strictEqual(evfCategorize({ primary_label: 'brand_new_label', tags: 'role' }).category, 'Unknown / Not Verified (refunded)');
	assert.strictEqual(evfCategorize({ primary_label: 'valid', tags: [null, { label: 'unheard_of' }] }).safe_to_send, true);
});
