import { z } from 'zod';
import { LgaRef } from '../domain/lga';
import { Coverage, DataMetadata, Postcode } from './check';
import { IsoTimestamp } from './keys';
import { endpoint } from './endpoint';

/** The most postcodes one subscription's catchment may hold. */
export const MAX_CATCHMENT_POSTCODES = 5000;
/**
 * The most entries a PUT's list may have, repeats included: room for a list pasted with duplicates, while the work of
 * one request (every entry looked at, every offender listed) stays bounded by the contract rather than by the body
 * size. Over it: 400 catchment_too_large.
 */
export const MAX_CATCHMENT_ENTRIES = MAX_CATCHMENT_POSTCODES * 4;

export const CatchmentRequest = z
  .object({
    postcodes: z
      .array(z.string())
      .max(MAX_CATCHMENT_ENTRIES)
      .meta({
        description:
          `The practice's postcodes: up to ${MAX_CATCHMENT_POSTCODES} distinct ones (repeats count once), in at most ` +
          `${MAX_CATCHMENT_ENTRIES} entries; more of either is refused with 400 catchment_too_large. Replaces the ` +
          'list. Invalid or unknown postcodes are refused in one 400 invalid_postcode listing them in error.details.',
        example: ['2480', '4000', '4055'],
      }),
  })
  .meta({ id: 'CatchmentRequest' });
export type CatchmentRequest = z.infer<typeof CatchmentRequest>;

/** GET's query: the JSON answer (default) or the CSV download. */
export const CatchmentQuery = z.object({ format: z.enum(['json', 'csv']).optional() });
export type CatchmentQuery = z.infer<typeof CatchmentQuery>;

/** A catchment postcode's colour: the check's, or `unknown` when its LGA cannot be told from the current data. */
export const CatchmentColor = z.enum(['green', 'amber', 'red', 'unknown']).meta({ id: 'CatchmentColor' });
export type CatchmentColor = z.infer<typeof CatchmentColor>;

export const CatchmentPostcode = z
  .object({
    postcode: Postcode,
    status_color: CatchmentColor,
    is_eligible: z.boolean(),
    lga_name: z.string().meta({ description: 'The principal LGA ("" when unknown)' }),
    lga_code: z.string(),
    lgas: z.array(LgaRef),
    active_agrns: z.array(z.string()).meta({ description: 'AGRNs of the active declarations covering the postcode' }),
    // `some` is eligible only for the patients living in one of `covered_lgas`: not a plain yes.
    coverage: Coverage,
    covered_lgas: z.array(LgaRef).meta({
      description: 'The LGAs of `lgas` an active declaration covers, in the order of `lgas` (empty when none is)',
    }),
  })
  .meta({ id: 'CatchmentPostcode' });
export type CatchmentPostcode = z.infer<typeof CatchmentPostcode>;

/**
 * The names of a row's LGAs an active declaration covers, and of those none covers (each name once, in the order of
 * `lgas`): what an alert and the table say of a partly covered postcode.
 */
export function coveredLgaNames(row: { lgas: readonly LgaRef[]; covered_lgas?: readonly LgaRef[] }): {
  covered: string[];
  uncovered: string[];
} {
  const covered = new Set((row.covered_lgas ?? []).map((l) => l.lga_name));
  const names = [...new Set(row.lgas.map((l) => l.lga_name))];
  return { covered: names.filter((n) => covered.has(n)), uncovered: names.filter((n) => !covered.has(n)) };
}

export const CatchmentSummary = z
  .object({
    green: z.number().int().nonnegative(),
    amber: z.number().int().nonnegative(),
    red: z.number().int().nonnegative(),
    unknown: z.number().int().nonnegative(),
    partly_covered: z.number().int().nonnegative().meta({
      description: 'Postcodes with coverage `some` (each is also counted in its colour, as green or amber)',
    }),
  })
  .meta({ id: 'CatchmentSummary', description: 'Postcodes by status_color, and the partly covered ones' });
export type CatchmentSummary = z.infer<typeof CatchmentSummary>;

export const CatchmentData = z
  .object({
    summary: CatchmentSummary,
    postcodes: z.array(CatchmentPostcode).meta({ description: 'In ascending postcode order' }),
    updated_at: IsoTimestamp.nullable().meta({ description: 'When the list was last saved; null: never' }),
  })
  .meta({ id: 'Catchment' });
export type CatchmentData = z.infer<typeof CatchmentData>;

export const CatchmentResponse = z
  .object({ success: z.literal(true), data: CatchmentData, metadata: DataMetadata })
  .meta({ id: 'CatchmentResponse' });
export type CatchmentResponse = z.infer<typeof CatchmentResponse>;

/*
 * The catchment answer as the extension and the console read it: an extension may talk to a server released before
 * some fields were added, so those are optional here and the views work without them (coverage then falls back to
 * what that server meant by eligible). Added after the contract: postcodes[].coverage, postcodes[].covered_lgas,
 * summary.partly_covered.
 */
export const ClientCatchmentPostcode = CatchmentPostcode.partial({ coverage: true, covered_lgas: true });
export type ClientCatchmentPostcode = z.infer<typeof ClientCatchmentPostcode>;

export const ClientCatchmentData = CatchmentData.extend({
  summary: CatchmentSummary.partial({ partly_covered: true }),
  postcodes: z.array(ClientCatchmentPostcode),
});
export type ClientCatchmentData = z.infer<typeof ClientCatchmentData>;

export const ClientCatchmentResponse = CatchmentResponse.extend({ data: ClientCatchmentData });

/**
 * The CSV download's columns, in order (one row per postcode; lgas, active_agrns and covered_lgas joined with "; ").
 * Columns added after the first ones go at the end, so a spreadsheet reading them by position keeps working.
 */
export const CATCHMENT_CSV_COLUMNS = [
  'postcode',
  'status_color',
  'is_eligible',
  'lga_name',
  'lga_code',
  'lgas',
  'active_agrns',
  'coverage',
  'covered_lgas',
] as const;

/**
 * The clinic's catchment: replaced over the session, read over the session or with a key (JSON, or `format=csv`). The
 * clients read the answer with ClientCatchmentResponse (fields they do not show are not required of the server).
 */
export const CATCHMENT_ENDPOINTS = {
  save: endpoint({ method: 'put', path: '/api/v1/catchment', body: CatchmentRequest, response: CatchmentResponse }),
  read: endpoint({ method: 'get', path: '/api/v1/catchment', query: CatchmentQuery, response: CatchmentResponse }),
} as const;
