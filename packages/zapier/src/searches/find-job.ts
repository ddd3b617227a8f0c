import { defineSearch, type Bundle, type ZObject } from 'zapier-platform-core';
import { stepDeadline } from '../budget';
import { clientFor } from '../client';
import { isNotFound, mapErrors } from '../errors';
import { jobIdInputField } from '../fields/inputs';
import { jobOutcomeOutputFields, jobOutputFields } from '../fields/outputs';
import { completedJobSample } from '../samples';
import { jobOutcome } from '../shapes';

const perform = mapErrors(async (z: ZObject, bundle: Bundle<{ job_id?: string }>) => {
  try {
    // Slow or hanging reads and their retries stop at the step's deadline, not at Zapier's 30 s.
    const job = await clientFor(z, bundle).getJob(String(bundle.inputData.job_id ?? '').trim(), {
      deadline: stepDeadline(),
    });
    return [{ ...job, ...jobOutcome(job) }];
  } catch (error) {
    // A search that finds nothing returns no items, so the user's "if nothing found" setting applies.
    if (isNotFound(error)) return [];
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
    sample: { ...completedJobSample, ...jobOutcome(completedJobSample) },
    outputFields: [...jobOutputFields(), ...jobOutcomeOutputFields()],
  },
});
