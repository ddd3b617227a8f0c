function evfCategorize(details) {
	// Make cannot import @evf/client, so this is the client's `categorize` in the plain JavaScript
	// a custom IML function may use. packages/make/test/iml-functions.test.ts runs both side by side
	// over every primary_label x tag combination; if they ever disagree, that test fails.
	// Decisions come from details.tags first, then details.primary_label; the row's status is never read.
	var tags = details && Array.isArray(details.tags) ? details.tags : [];
	var tagRules = [
		['spam_trap', 'Spam Trap', 'invalid'],
		['disposable', 'Disposable', 'invalid'],
		['role', 'Role', 'risky']
	];
	for (var i = 0; i < tagRules.length; i++) {
		var rule = tagRules[i];
		var hit = tags.some(function (t) { return t && t.label === rule[0]; });
		if (hit) return { category: rule[1], group: rule[2], safe_to_send: rule[2] === 'safe_to_send' };
	}
	var labelRules = {
		valid: ['Valid', 'safe_to_send'],
		catch_all: ['Catch-All', 'risky'],
		inbox_full: ['Inbox Full', 'risky'],
		invalid: ['Invalid / Disabled / No Mail Server', 'invalid'],
		disabled: ['Invalid / Disabled / No Mail Server', 'invalid'],
		unknown: ['Unknown / Not Verified (refunded)', 'risky'],
		not_verified: ['Unknown / Not Verified (refunded)', 'risky']
	};
	var label = details && typeof details.primary_label === 'string' ? details.primary_label : '';
	// A label never seen before is no evidence of deliverability: hold it back like an unknown.
	var found = Object.prototype.hasOwnProperty.call(labelRules, label)
		? labelRules[label]
		: ['Unknown / Not Verified (refunded)', 'risky'];
	return { category: found[0], group: found[1], safe_to_send: found[1] === 'safe_to_send' };
}
