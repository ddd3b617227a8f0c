import type { RequestOptions } from './core/http';
import type { EmailVerificationClient } from './client';
import { EvfError, InputError, PartialSubmissionError, UnprocessableError } from './errors';
import { LIMITS } from './limits';
import { preflightEmails, type MalformedAddress, type PreflightReport } from './validation/preflight';
import { assertName, assertPriority } from './validation/params';
import type { BulkSubmission, Priority } from './types';

export interface SubmitListInput {
  /** An array (items may hold several addresses) or pasted text (one per line, or comma separated). */
  emails: string | readonly unknown[];
  name?: string;
  webhook_url?: string;
  priority?: Priority;
  check_smtp?: boolean;
  /** Jobs of at most this many addresses (default and maximum 50,000). */
  maxPerJob?: number;
}

export interface ListSubmission {
  jobs: BulkSubmission[];
  preflight: PreflightReport;
  /** Addresses the service refused although pre-flight accepted them (found by a 422), not charged. */
  rejectedByService: MalformedAddress[];
  /** Credits charged at submission, summed over the jobs. */
  creditsUsed: number;
  /** The balance after the last submission. */
  creditsRemaining: number | undefined;
}

/**
 * Submits a list of any size without losing it to one bad row or charging it twice:
 * pre-flight removes malformed addresses and duplicates and splits the list into jobs of 50,000; a 422
 * the pre-flight did not foresee (the service's syntax rules are not published in full) is resolved by
 * dropping the addresses the error names, or, when it names none, by halving the list until the
 * offenders are isolated. A 422 charges nothing, so this costs requests, never credits.
 */
export async function submitList(
  client: EmailVerificationClient,
  input: SubmitListInput,
  opts: RequestOptions = {},
): Promise<ListSubmission> {
  if (input === null || typeof input !== 'object' || input.emails === undefined || input.emails === null) {
    throw new InputError('emails', 'required', 'Give the addresses to verify: a list, or text with one address per line.');
  }
  if (typeof input.emails !== 'string' && !Array.isArray(input.emails)) {
    throw new InputError('emails', 'type', 'The addresses must be a list or text with one address per line.');
  }
  assertName(input.name);
  assertPriority(input.priority);
  if (input.webhook_url !== undefined && input.webhook_url !== '') await client.assertWebhookUrl(input.webhook_url);
  const preflight = preflightEmails(input.emails, { maxPerJob: input.maxPerJob ?? LIMITS.maxEmailsPerJob });
  if (preflight.unique.length === 0) {
    const detail = preflight.malformed.length
      ? ` All ${preflight.malformed.length} given were malformed, e.g. "${preflight.malformed[0]!.email.slice(0, 100)}" ${preflight.malformed[0]!.reason}.`
      : '';
    throw new InputError('emails', 'min_items', `The list holds no valid email address to verify.${detail} Nothing was sent or charged.`);
  }

  const jobs: BulkSubmission[] = [];
  const rejectedByService: MalformedAddress[] = [];
  const parts = preflight.chunks.length;
  const nameFor = (i: number): string | undefined => {
    if (!input.name) return undefined;
    if (parts === 1) return input.name;
    const suffix = ` (part ${i + 1} of ${parts})`;
    return input.name.slice(0, LIMITS.maxNameLength - suffix.length) + suffix;
  };
  const base = { webhook_url: input.webhook_url || undefined, priority: input.priority, check_smtp: input.check_smtp };

  let remaining = preflight.unique.length;
  for (let i = 0; i < parts; i++) {
    const chunk = preflight.chunks[i]!;
    try {
      await submitResolving422(client, chunk, { ...base, name: nameFor(i) }, opts, jobs, rejectedByService);
    } catch (error) {
      if (jobs.length > 0 && error instanceof EvfError) throw new PartialSubmissionError(error, jobs.map((j) => j.job_id), remaining);
      throw error;
    }
    remaining -= chunk.length;
  }
  const last = jobs[jobs.length - 1];
  return {
    jobs,
    preflight,
    rejectedByService,
    creditsUsed: jobs.reduce((sum, j) => sum + (j.credits_used ?? 0), 0),
    creditsRemaining: last?.credits_remaining,
  };
}

const MAX_422_REQUESTS = 200;

type BulkOptions = { name?: string; webhook_url?: string; priority?: Priority; check_smtp?: boolean };

async function submitResolving422(
  client: EmailVerificationClient,
  emails: string[],
  options: BulkOptions,
  opts: RequestOptions,
  jobs: BulkSubmission[],
  rejected: MalformedAddress[],
): Promise<void> {
  // Work list of sub-lists still to place; halving only happens when a 422 names no address.
  const pending: string[][] = [emails];
  let firstError: UnprocessableError | undefined;
  let placed = 0;
  let requests = 0;
  while (pending.length) {
    const list = pending.shift()!;
    // Halving isolates a few offenders in ~2·log2(n) calls each; far more means the 422 is about something else.
    if (++requests > MAX_422_REQUESTS && firstError) throw firstError;
    try {
      jobs.push(await client.submitBulk({ emails: list, ...options }, opts));
      placed += list.length;
    } catch (error) {
      if (!(error instanceof UnprocessableError) || mentionsNonEmailField(error)) throw error;
      firstError ??= error;
      const named = new Set((error.invalidEmails ?? []).map((e) => e.email.toLowerCase()));
      const keep = named.size ? list.filter((e) => !named.has(e.toLowerCase())) : undefined;
      if (keep && keep.length < list.length) {
        for (const bad of error.invalidEmails ?? []) {
          rejected.push({ email: bad.email, index: emails.indexOf(bad.email), reason: bad.reason ?? 'refused by the service' });
        }
        if (keep.length) pending.unshift(keep);
      } else if (list.length > 1) {
        const mid = Math.ceil(list.length / 2);
        pending.unshift(list.slice(0, mid), list.slice(mid));
      } else {
        rejected.push({ email: list[0]!, index: emails.indexOf(list[0]!), reason: error.serverMessage ?? 'refused by the service' });
      }
    }
  }
  // Every address refused one by one means the 422 was never about the addresses: report it as it is.
  if (placed === 0 && firstError) throw firstError;
}

function mentionsNonEmailField(error: UnprocessableError): boolean {
  if (error.invalidEmails?.length) return false;
  const text = JSON.stringify(error.body ?? '').toLowerCase();
  return /webhook|"name"|priority|check_smtp/.test(text);
}
