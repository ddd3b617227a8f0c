import { defineCreate, type Bundle, type ZObject } from 'zapier-platform-core';
import { clientFor } from '../client';
import { mapErrors } from '../errors';
import { field } from '../fields/outputs';
import { asSample, creditBalanceSample } from '../samples';

const perform = mapErrors(async (z: ZObject, bundle: Bundle) => ({
  ...(await clientFor(z, bundle).getCredits()),
}));

/**
 * An action, not a search: a search must have a field to search by (Zapier check D009) and there is
 * nothing to search for here; reading the balance is free, so running it in every Zap run costs nothing.
 */
export default defineCreate({
  key: 'get_credit_balance',
  noun: 'Credit Balance',
  display: {
    label: 'Get Credit Balance',
    description:
      'Reads the credits left on the account, the credits used in the last 24 hours and 30 days, and the renewal date (free), e.g. to stop a Zap before a large list when the balance is low.',
  },
  operation: {
    inputFields: [],
    perform,
    sample: asSample(creditBalanceSample),
    outputFields: [
      field('credits', 'Credits Left', 'integer'),
      field('credits_used_today', 'Credits Used in the Last 24 Hours', 'integer'),
      field('credits_used_this_month', 'Credits Used in the Last 30 Days', 'integer'),
      field('plan_limit', 'Plan Limit', 'string'),
      field('renewal_date', 'Renewal Date', 'datetime'),
    ],
  },
});
