it('running jobs are not finished', function () {
	assert.strictEqual(evfIsFinishedStatus('queued'), false);
	assert.strictEqual(evfIsFinishedStatus('processing'), false);
});

it('every stopped status is finished, including ones the spec only names', function () {
	['completed', 'failed', 'interrupted', 'cancelled'].forEach(function (s) {
		assert.strictEqual(evfIsFinishedStatus(s), true, s);
	});
});

it('a missing status is not taken as finished', function () {
	assert.strictEqual(evfIsFinishedStatus(undefined), false);
	assert.strictEqual(evfIsFinishedStatus(''), false);
});
