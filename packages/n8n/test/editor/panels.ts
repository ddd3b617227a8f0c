/**
 * What the node details panel must show, written once and checked twice: against n8n-workflow's own
 * display rules in descriptions.sandbox.test.ts, and against the real editor in Chromium in
 * editor.e2e.test.ts. Names are the labels a user reads, top to bottom.
 */
export interface PanelCase {
	title: string;
	/** Values the user sets, in this order, before reading the panel. */
	set: Record<string, string | boolean>;
	visible: string[];
	/** Options offered by the "Options" collection's Add Option list, when the operation has one. */
	options?: string[];
	/** Text that must appear in the panel (notices), or must not. */
	notices?: string[];
}

export const ACTION_DESCRIPTION =
	'Verify email addresses one by one or whole sheets as one bulk job, wait for jobs and route rows by group';

const submitOptions = [
	'Check Mail Server (SMTP)',
	'Forget a Finished List After (Days)',
	'If No Address Is Valid',
	'If the Allowance or a Pause Stops the List',
	'If the Balance Is Short',
	'List Name',
	'Priority',
	'Remember Sent Lists',
	'Send Again in Manual or Retried Runs',
	'Skip Rows Already Answered',
	'Webhook URL',
];
const submitBase = [
	'Resource',
	'Operation',
	'Addresses From',
	'Email Field',
	'Wait for Completion',
];
const waitFields = ['Wait Method', 'Timeout (Minutes)', 'Poll Interval (Seconds)', 'Output'];
const WEBHOOK_NOTICE =
	"Waiting by webhook works only for a job submitted earlier in this same execution with this execution's resume URL as its Webhook URL (see Submit's Options). For any other job, choose Polling.";

export const PANEL_CASES: PanelCase[] = [
	{
		title: 'Email > Verify',
		set: { resource: 'email', operation: 'verify' },
		visible: ['Resource', 'Operation', 'Email', 'Options'],
	},
	{
		title: 'Bulk Job > Submit, not waiting',
		set: { resource: 'bulkJob', operation: 'submit' },
		visible: [...submitBase, 'Options'],
		options: submitOptions,
	},
	{
		title: 'Bulk Job > Submit, addresses from a list',
		set: { resource: 'bulkJob', operation: 'submit', emailSource: 'list' },
		visible: [
			'Resource',
			'Operation',
			'Addresses From',
			'Emails',
			'Wait for Completion',
			'Options',
		],
	},
	{
		title: 'Bulk Job > Submit, waiting automatically for result rows',
		set: { resource: 'bulkJob', operation: 'submit', waitForCompletion: true },
		visible: [...submitBase, ...waitFields, 'Result Options', 'Options'],
		options: submitOptions,
	},
	{
		title: 'Bulk Job > Submit, waiting by webhook',
		set: {
			resource: 'bulkJob',
			operation: 'submit',
			waitForCompletion: true,
			waitMethod: 'webhook',
		},
		visible: [
			...submitBase,
			'Wait Method',
			'Timeout (Minutes)',
			'Output',
			'Result Options',
			'Options',
		],
		// The job gets this execution's resume URL, so a Webhook URL of the user's would do nothing.
		options: submitOptions.filter((name) => name !== 'Webhook URL'),
	},
	{
		title: 'Bulk Job > Submit, polling for the job summary',
		set: {
			resource: 'bulkJob',
			operation: 'submit',
			waitForCompletion: true,
			waitMethod: 'polling',
			waitOutput: 'job',
		},
		visible: [...submitBase, ...waitFields, 'Options'],
		options: submitOptions,
	},
	{
		title: 'Bulk Job > Get',
		set: { resource: 'bulkJob', operation: 'get' },
		visible: ['Resource', 'Operation', 'Job'],
	},
	{
		title: 'Bulk Job > Get Many',
		set: { resource: 'bulkJob', operation: 'getMany' },
		visible: ['Resource', 'Operation', 'Return All', 'Limit', 'Filters'],
	},
	{
		title: 'Bulk Job > Get Results',
		set: { resource: 'bulkJob', operation: 'getResults' },
		visible: [
			'Resource',
			'Operation',
			'Job',
			'Return All',
			'Groups',
			'Simplify',
			'Only Sheet Fields',
		],
	},
	{
		title: 'Bulk Job > Wait for Completion, automatic',
		set: { resource: 'bulkJob', operation: 'waitForCompletion' },
		visible: ['Resource', 'Operation', 'Job', ...waitFields, 'Result Options'],
		notices: [],
	},
	{
		title: 'Bulk Job > Wait for Completion, by webhook',
		set: { resource: 'bulkJob', operation: 'waitForCompletion', waitMethod: 'webhook' },
		visible: [
			'Resource',
			'Operation',
			'Job',
			'Wait Method',
			WEBHOOK_NOTICE,
			'Timeout (Minutes)',
			'Output',
			'Result Options',
		],
		notices: [WEBHOOK_NOTICE],
	},
	{
		title: 'Bulk Job > Wait for Completion, polling for the job summary',
		set: {
			resource: 'bulkJob',
			operation: 'waitForCompletion',
			waitMethod: 'polling',
			waitOutput: 'job',
		},
		visible: ['Resource', 'Operation', 'Job', ...waitFields],
		notices: [],
	},
	{
		title: 'Account > Get Credits',
		set: { resource: 'account', operation: 'getCredits' },
		visible: ['Resource', 'Operation'],
	},
	{
		title: 'Account > Get Account',
		set: { resource: 'account', operation: 'getAccount' },
		visible: ['Resource', 'Operation'],
	},
	{
		title: 'Account > Get Subscription',
		set: { resource: 'account', operation: 'getSubscription' },
		visible: ['Resource', 'Operation'],
	},
	{
		title: 'API Key > Revoke',
		set: { resource: 'apiKey', operation: 'revoke' },
		visible: ['Resource', 'Operation', 'Key ID'],
	},
];

/** The job picker's label: "<n> address(es) · <status> · <day> <Mon>[ <year>] <HH:MM>". */
export const JOB_LABEL =
	/^[\d,]+ address(es)? · (queued|processing \d+%|completed|failed|cancelled|[a-z_]+) · \d{1,2} [A-Z][a-z]{2}( \d{4})? \d{2}:\d{2}( UTC)?$/;
