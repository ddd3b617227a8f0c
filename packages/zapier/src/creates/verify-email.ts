import {
  ApiError,
  categorizeUnanswered,
  RequestTimeoutError,
  SubmissionUncertainError,
  VerificationTimeoutError,
  VerificationUncertainError,
  withCategory,
  type BadInputVerdict,
} from '@evf/client';
import { defineCreate, type Bundle, type ZObject } from 'zapier-platform-core';
import { stepDeadline } from '../budget';
import { clientFor } from '../client';
import { SINGLE_VERIFY_TIMEOUT_MS } from '../config';
import { mapErrors } from '../errors';
import { optionalBoolean } from '../fields/coerce';
import { field, verifiedAddressOutputFields } from '../fields/outputs';
import { verifyEmailSample } from '../samples';

type VerifyEmailInput = {
  email?: unknown;
  check_smtp?: unknown;
  on_timeout?: unknown;
};

/** Why no verdict came: the service said so (408, credit refunded), or its answer never arrived. */
type NoVerdict = 'refunded' | 'lost';

const NO_VERDICT_REASON: Record<NoVerdict, string> = {
  refunded:
    'The mail server gave no answer within 30 seconds, so the address could not be verified now; the credit was refunded. Verify it again later.',
  lost: 'No answer came back in time. The address may still have been verified and charged 1 credit; verify it again later.',
};

/** A 408 from the service, or an answer lost after the request left (our own timeout, a gateway error). */
function noVerdict(error: unknown): NoVerdict | undefined {
  if (error instanceof VerificationTimeoutError || (error instanceof ApiError && error.status === 408))
    return 'refunded';
  if (
    error instanceof RequestTimeoutError ||
    error instanceof VerificationUncertainError ||
    error instanceof SubmissionUncertainError
  )
    return 'lost';
  return undefined;
}

/**
 * The answer when no verdict came in time: the address is held back like an "unknown" from the service
 * (group Risky, via the shared mapping), so a Filter step treats both alike; the category says "refunded"
 * only after a 408, the one case the service refunds.
 */
function timedOutResult(email: string, why: NoVerdict) {
  const reason = NO_VERDICT_REASON[why];
  const details = { primary_label: 'unknown', tags: [], label_reasons: [reason] };
  const { category, group, safeToSend } = categorizeUnanswered(why === 'refunded');
  return {
    email,
    category,
    group,
    safe_to_send: safeToSend,
    status: 'risky',
    valid: false,
    score: 0,
    reason,
    details,
    // A 408 is refunded by the service; after a lost answer the service may still have charged.
    credits_used: why === 'refunded' ? 0 : null,
    credits_remaining: null,
    processed_at: new Date().toISOString(),
    timed_out: true,
  };
}

/**
 * A cell that holds no single address (empty, `ada@@acme`, `n/a`, two addresses) is a lead for the
 * invalid path, not a failed run: Zapier turns off Zaps that error often, and later steps would never
 * run. The verdict is the client's (nothing sent, nothing charged); it gets the keys of every other
 * answer so Paths and Filters read it alike.
 */
function badCellResult(verdict: BadInputVerdict) {
  return {
    email: verdict.email,
    category: verdict.category,
    group: verdict.group,
    safe_to_send: verdict.safe_to_send,
    status: verdict.status,
    valid: verdict.valid,
    score: 0,
    reason: verdict.reason,
    details: { primary_label: 'invalid', tags: [], label_reasons: [verdict.reason] },
    credits_used: 0,
    credits_remaining: null,
    processed_at: new Date().toISOString(),
    timed_out: false,
  };
}

const perform = mapErrors(async (z: ZObject, bundle: Bundle<VerifyEmailInput>) => {
  // Counted from the step's start, like every other step: a 429's wait and a slow mail server together
  // must still end before Zapier's 30 s.
  const deadline = stepDeadline();
  const cell = bundle.inputData.email;
  const client = clientFor(z, bundle);
  const email = typeof cell === 'string' ? cell : String(cell ?? '');
  try {
    const result = await client.verifyCell(cell, {
      check_smtp: optionalBoolean(bundle.inputData.check_smtp),
      timeoutMs: SINGLE_VERIFY_TIMEOUT_MS,
      deadline,
    });
    if ('sent' in result && result.sent === false) return badCellResult(result);
    return { ...withCategory(result), timed_out: false };
  } catch (error) {
    const why = noVerdict(error);
    if (why === undefined) throw error;
    if (bundle.inputData.on_timeout !== 'error') return timedOutResult(email.trim(), why);
    throw new z.errors.Error(
      `${NO_VERDICT_REASON[why]} To get an "unknown, re-verify later" result instead of a failed step, set "If No Answer in Time" to "Return unknown".`,
      why === 'refunded' ? 'verification_timeout' : 'no_answer',
      why === 'refunded' ? 408 : undefined,
    );
  }
});

export default defineCreate({
  key: 'verify_email',
  noun: 'Verification',
  display: {
    label: 'Verify Email Address',
    description:
      'Checks one address with its mail server and returns whether it is safe to send, risky or invalid (1 credit).',
  },
  operation: {
    inputFields: [
      {
        key: 'email',
        label: 'Email Address',
        type: 'string',
        // Not required: a required field left empty by a mapped cell halts the run, and an empty cell is
        // a lead for the invalid path like any other bad cell.
        required: false,
        helpText:
          'The one address to check, e.g. mapped from a new lead or a new sheet row. An empty cell, a typo or two addresses in one cell give group Invalid at no cost (nothing is sent), so the Zap goes on.',
      },
      {
        key: 'check_smtp',
        label: 'Check Mail Server',
        type: 'boolean',
        required: false,
        default: 'true',
        helpText:
          "Asks the address's mail server whether the mailbox exists. Turn off for a faster check without it.",
      },
      {
        key: 'on_timeout',
        label: 'If No Answer in Time',
        type: 'string',
        required: true,
        default: 'unknown',
        choices: [
          { value: 'unknown', label: 'Return unknown (re-verify later)', sample: 'unknown' },
          { value: 'error', label: 'Fail the step', sample: 'error' },
        ],
        helpText:
          'Some mail servers answer slowly and a Zapier step may not wait 30 seconds. Return unknown gives a result with group Risky and Timed Out set, so a Filter can hold the address back for a later retry.',
      },
    ],
    perform,
    sample: verifyEmailSample,
    outputFields: [
      ...verifiedAddressOutputFields(),
      field('credits_used', 'Credits Used', 'integer'),
      field('credits_remaining', 'Credits Remaining', 'integer'),
      field('processed_at', 'Processed At', 'datetime'),
      field('timed_out', 'Timed Out', 'boolean'),
    ],
  },
});
