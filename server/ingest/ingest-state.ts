import { z } from 'zod';
import type { DocumentStore } from '../storage/document-store';

export const RunCounts = z.object({
  /** How the list was read ('html' as served, 'browser' rendered by Chromium); absent in files from before it was kept. */
  list_path: z.enum(['html', 'browser']).optional(),
  list_pages: z.number().int(),
  listed: z.number().int(),
  event_pages: z.number().int(),
  drfa_activations: z.number().int().nullable(),
  stored: z.number().int(),
  added: z.number().int(),
  changed: z.number().int(),
  ended: z.number().int(),
  unmatched_lga_names: z.number().int(),
  invalid_records: z.number().int(),
});
export type RunCounts = z.infer<typeof RunCounts>;

export const RunRecord = z.object({
  started_at: z.string(),
  finished_at: z.string(),
  trigger: z.string(),
  ok: z.boolean(),
  duration_ms: z.number().int(),
  error: z.object({ kind: z.string(), message: z.string() }).nullable(),
  counts: RunCounts.nullable(),
});
export type RunRecord = z.infer<typeof RunRecord>;

export const IngestStateFile = z.object({
  last_attempt_at: z.string().nullable(),
  last_success_at: z.string().nullable(),
  last_error: z
    .object({ at: z.string(), kind: z.string(), message: z.string(), details: z.array(z.string()) })
    .nullable(),
  /** Counts of the last successful run: the baseline the next run's "implausible drop" check compares with. */
  last_success_counts: RunCounts.nullable(),
  /** LGA names the last successful run could not match to a code (they still match by name). */
  unmatched_lga_names: z.array(z.object({ agrn: z.string(), state: z.string().nullable(), name: z.string() })),
  /** Newest first, at most HISTORY_LENGTH. */
  history: z.array(RunRecord),
});
export type IngestStateFile = z.infer<typeof IngestStateFile>;
export type IngestStateStore = DocumentStore<IngestStateFile>;

export const HISTORY_LENGTH = 30;
