function evfIsFinishedStatus(status) {
	// Job list items carry no `terminal` flag, and the spec does not list every status for which a
	// job has stopped. queued and processing are the only states it names as running, so any other
	// status (completed, failed, interrupted, cancelled, or one added later) counts as finished.
	return typeof status === 'string' && status !== '' && status !== 'queued' && status !== 'processing';
}
