function evfErrorMessage(statusCode, body, headers) {
	// Turns an error answer into a message a no-code user can act on. The error body's shape is not
	// fixed by the spec, so every field is read defensively. Nothing here can contain the API key:
	// only the status, the server's message and the named input problems are used.
	function header(name) {
		for (var key in headers || {}) {
			if (key.toLowerCase() === name && headers[key] !== undefined && headers[key] !== null) return String(headers[key]);
		}
		return '';
	}
	var err = body && typeof body === 'object' && body.error && typeof body.error === 'object' ? body.error : {};
	var serverMessage = typeof err.message === 'string' ? err.message
		: body && typeof body.message === 'string' ? body.message
		: typeof body === 'string' ? body.slice(0, 300) : '';
	var said = serverMessage ? ' The service said: ' + serverMessage : '';
	var status = Number(statusCode);
	if (status === 401 || status === 403) {
		return 'The API key was refused (missing, wrong or revoked). Open the connection and paste a current key; keys start with evf_.' + said;
	}
	if (status === 402) return 'The account is out of credits, so nothing was verified. Add credits or a plan, then run the scenario again.' + said;
	if (status === 404) return 'Not found: check the job ID or key ID (it must belong to this account).' + said;
	if (status === 408) {
		return 'The address took longer than 30 seconds to verify; its credit was refunded. Try it again later, or send it in a bulk job.' + said;
	}
	if (status === 422) {
		var parts = [];
		if (Array.isArray(err.invalid_emails) && err.invalid_emails.length) {
			var shown = err.invalid_emails.slice(0, 5).map(function (e) {
				return '"' + (e && e.email) + '" (item ' + (e && typeof e.index === 'number' ? e.index + 1 : '?') + (e && e.reason ? ': ' + e.reason : '') + ')';
			});
			parts.push('These addresses are not valid: ' + shown.join(', ') + (err.invalid_emails.length > 5 ? ' and ' + (err.invalid_emails.length - 5) + ' more' : '') + '. Remove or fix them and submit again.');
		}
		if (typeof err.field === 'string') parts.push('Field ' + err.field + (err.rule ? ' breaks the rule "' + err.rule + '"' : ' is not accepted') + '.');
		return 'The service refused the input and charged nothing. ' + parts.join(' ') + said;
	}
	if (status === 429) {
		var reset = header('x-ratelimit-reset');
		return 'Over the API allowance for now. Run again after ' + (reset ? 'the time in X-RateLimit-Reset (' + reset + ')' : 'a while') + '.' + said;
	}
	if (status === 503) {
		var after = header('retry-after');
		return 'The service has paused new jobs; nothing was charged. Try again ' + (after ? 'after ' + after + (/^\d+$/.test(after) ? ' seconds' : '') : 'later') + '.' + said;
	}
	return 'The service answered with HTTP ' + (isFinite(status) ? status : 'error') + '.' + said;
}
