import { LIMITS } from '@evf/client';
import type { PlainInputField } from 'zapier-platform-core';

/** Inputs shared by the two list operations: where the addresses come from, and the job's options. */
export const listInputFields = [
  {
    key: 'emails',
    label: 'Email Addresses',
    type: 'string',
    list: true,
    required: false,
    helpText:
      'Map a column or a line-item field, or add addresses one by one. Malformed addresses and duplicates are taken out before submitting, listed in the output and never charged.',
  },
  {
    key: 'emails_text',
    label: 'Pasted List',
    type: 'text',
    required: false,
    helpText:
      'Or paste addresses separated by new lines, commas, semicolons or tabs, as copied from a spreadsheet column. Used together with the field above when both are filled.',
  },
  {
    key: 'name',
    label: 'List Name',
    type: 'string',
    required: false,
    helpText: `Shown next to the job in the dashboard; up to ${LIMITS.maxNameLength} characters.`,
  },
  {
    key: 'priority',
    label: 'Priority',
    type: 'string',
    required: false,
    default: 'normal',
    choices: [
      { value: 'normal', label: 'Normal', sample: 'normal' },
      { value: 'high', label: 'High', sample: 'high' },
      { value: 'urgent', label: 'Urgent', sample: 'urgent' },
    ],
    helpText: 'Higher priority jobs are processed first when the service is busy.',
  },
  {
    key: 'check_smtp',
    label: 'Check Mail Server',
    type: 'boolean',
    required: false,
    default: 'true',
    helpText:
      "Asks each address's mail server whether the mailbox exists. Turn off for a faster check without it.",
  },
] as const satisfies PlainInputField[];

/** A job ID picked from the hidden "recent jobs" trigger, or mapped from an earlier step. */
export const jobIdInputField = {
  key: 'job_id',
  label: 'Job',
  type: 'string',
  required: true,
  dynamic: 'recent_jobs.id.label',
  helpText: 'Pick one of your recent jobs, or map the Job ID returned by "Submit Bulk Verification".',
} as const satisfies PlainInputField;
