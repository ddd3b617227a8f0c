import { NotFoundError } from '@evf/client';
import { defineSearch, type Bundle, type ZObject } from 'zapier-platform-core';
import { clientFor } from '../client';
import { mapErrors } from '../errors';
import { jobIdInputField } from '../fields/inputs';
import { jobOutputFields } from '../fields/outputs';
import { asSample, completedJobSample } from '../samples';

const perform = mapErrors(async (z: ZObject, bundle: Bundle<{ job_id?: string }>) => {
  try {
    return [await clientFor(z, bundle).getJob(String(bundle.inputData.job_id ?? '').trim())];
  } catch (error) {
    // A search that finds nothing returns no items, so the user's "if nothing found" setting applies.
    if (error instanceof NotFoundError) return [];
    throw error;
  }
});

export default defineSearch({
  key: 'find_job',
  noun: 'Bulk Job',
  display: {
    label: 'Find Bulk Job',
    description:
      'Finds a bulk verification job by ID and returns its status, progress, verdict counts and group counts.',
  },
  operation: {
    inputFields: [jobIdInputField],
    perform,
    sample: asSample(completedJobSample),
    outputFields: jobOutputFields(),
  },
});
