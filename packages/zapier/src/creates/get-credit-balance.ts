import { InputError } from '@evf/client';
import { defineCreate, type Bundle, type ZObject } from 'zapier-platform-core';
import { clientFor } from '../client';
import { mapErrors } from '../errors';
import { optionalString } from '../fields/coerce';
import { creditOutputFields, field } from '../fields/outputs';
import { asSample, creditBalanceSample } from '../samples';

/** Empty Minimum Credits: what one check costs, so Enough Credits still says whether the next one can run. */
const DEFAULT_MINIMUM = 1;

/** The credits the user needs next; refused before any request when it is not a whole number >= 0. */
function minimumCredits(value: unknown): number {
  const text = optionalString(value);
  if (text === undefined) return DEFAULT_MINIMUM;
  const n = Number(text.trim().replace(/[,_\s]/g, ''));
  if (Number.isSafeInteger(n) && n >= 0) return n;
  throw new InputError(
    'minimum_credits',
    'range',
    'Minimum Credits must be a whole number, 0 or more (e.g. the number of addresses you are about to verify), or empty for 1.',
  );
}

const perform = mapErrors(async (z: ZObject, bundle: Bundle<{ minimum_credits?: unknown }>) => {
  const minimum = minimumCredits(bundle.inputData.minimum_credits);
  const balance = await clientFor(z, bundle).getCredits();
  return {
    ...balance,
    minimum_credits: minimum,
    enough_credits: balance.credits >= minimum,
    credits_short: Math.max(0, minimum - balance.credits),
  };
});

const sample = {
  ...creditBalanceSample,
  minimum_credits: 5_000,
  enough_credits: creditBalanceSample.credits >= 5_000,
  credits_short: Math.max(0, 5_000 - creditBalanceSample.credits),
};

/**
 * An action, not a search: a search must have a field to search by (Zapier check D009) and there is
 * nothing to search for here; reading the balance is free, so running it in every Zap run costs nothing.
 * Actions "require an input form" (https://docs.zapier.com/integrations/build/add-fields; check D022):
 * Minimum Credits is one that does work, turning the balance into a yes/no a Filter or Paths step reads.
 */
export default defineCreate({
  key: 'get_credit_balance',
  noun: 'Credit Balance',
  display: {
    label: 'Get Credit Balance',
    description:
      "Gets the account's credit balance and usage, and whether it covers a given number of credits.",
  },
  operation: {
    inputFields: [
      {
        key: 'minimum_credits',
        label: 'Minimum Credits',
        type: 'integer',
        required: false,
        helpText:
          'The credits your next steps need, e.g. the number of addresses you are about to verify (each costs 1 credit). The output then says Enough Credits (true or false) and Credits Short, for a Filter or Paths step to stop before the service refuses the list for want of credits. Empty means 1, what one check costs.',
      },
    ],
    perform,
    sample: asSample(sample),
    outputFields: [
      ...creditOutputFields(),
      field('minimum_credits', 'Minimum Credits', 'integer'),
      field('enough_credits', 'Enough Credits', 'boolean'),
      field('credits_short', 'Credits Short', 'integer'),
    ],
  },
});
