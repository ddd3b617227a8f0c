import { defineSearch, type Bundle, type ZObject } from 'zapier-platform-core';
import { clientFor } from '../client';
import { mapErrors } from '../errors';
import { field } from '../fields/outputs';
import { asSample, creditBalanceSample } from '../samples';

const perform = mapErrors(async (z: ZObject, bundle: Bundle) => [await clientFor(z, bundle).getCredits()]);

export default defineSearch({
  key: 'get_credit_balance',
  noun: 'Credit Balance',
  display: {
    label: 'Get Credit Balance',
    description:
      'Returns the credits left on the account, the credits used today and this month, and the renewal date.',
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
