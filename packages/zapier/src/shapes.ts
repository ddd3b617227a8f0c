import type { PreflightReport } from '@evf/client';

/**
 * Output shapes that more than one operation returns. Positions are 1-based ("row 1" is the first
 * address a user gave), because the people reading them count rows in a sheet, not array indexes.
 */
export interface PreflightSummary {
  received: number;
  unique_count: number;
  duplicates_removed: number;
  malformed_removed: number;
  malformed: { email: string; position: number; reason: string }[];
  duplicates: { email: string; position: number; first_position: number }[];
}

export function preflightSummary(report: PreflightReport): PreflightSummary {
  return {
    received: report.received,
    unique_count: report.unique.length,
    duplicates_removed: report.duplicates.length,
    malformed_removed: report.malformed.length,
    malformed: report.malformed.map((m) => ({ email: m.email, position: m.index + 1, reason: m.reason })),
    duplicates: report.duplicates.map((d) => ({
      email: d.email,
      position: d.index + 1,
      first_position: d.firstIndex + 1,
    })),
  };
}
