type NodeMap = {
	email: 'verify';
	bulkJob: 'submit' | 'get' | 'getMany' | 'getResults' | 'getResultsForRows' | 'waitForCompletion';
	account: 'getAccount' | 'getCredits' | 'getSubscription';
	apiKey: 'revoke';
};

export type EmailVerificationType = {
	[K in keyof NodeMap]: { resource: K; operation: NodeMap[K] };
}[keyof NodeMap];
