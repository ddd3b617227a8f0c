import { withCategory, type BadInputVerdict } from '@evf/client';
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
};

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
    processed_at: new Date().toISOString(),
  };
}

const perform = mapErrors(async (z: ZObject, bundle: Bundle<VerifyEmailInput>) => {
  // Counted from the step's start, like every other step: a 429's wait and a slow mail server together
  // must still end before Zapier's 30 s.
  const deadline = stepDeadline();
  const client = clientFor(z, bundle);
  // An outage (5xx, a lost answer, our own timeout) and the service's 408 are errors the client throws;
  // only the service's verdict or a free bad-cell verdict comes back here (see errors.ts).
  const result = await client.verifyCell(bundle.inputData.email, {
    check_smtp: optionalBoolean(bundle.inputData.check_smtp),
    timeoutMs: SINGLE_VERIFY_TIMEOUT_MS,
    deadline,
  });
  if ('sent' in result && result.sent === false) return badCellResult(result);
  return { ...withCategory(result) };
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
    ],
    perform,
    sample: verifyEmailSample,
    outputFields: [
      ...verifiedAddressOutputFields(),
      field('credits_used', 'Credits Used', 'integer'),
      field('credits_remaining', 'Credits Remaining', 'integer'),
      field('processed_at', 'Processed At', 'datetime'),
    ],
  },
});
