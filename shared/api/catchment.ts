import { z } from 'zod';
import { LgaRef } from '../domain/lga';
import { DataMetadata, Postcode } from './check';
import { IsoTimestamp } from './keys';

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
  })
  .meta({ id: 'CatchmentPostcode' });
export type CatchmentPostcode = z.infer<typeof CatchmentPostcode>;

export const CatchmentSummary = z
  .object({
    green: z.number().int().nonnegative(),
    amber: z.number().int().nonnegative(),
    red: z.number().int().nonnegative(),
    unknown: z.number().int().nonnegative(),
  })
  .meta({ id: 'CatchmentSummary' });
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

/** The CSV download's columns, in order (one row per postcode; lgas and active_agrns joined with "; "). */
export const CATCHMENT_CSV_COLUMNS = [
  'postcode',
  'status_color',
  'is_eligible',
  'lga_name',
  'lga_code',
  'lgas',
  'active_agrns',
] as const;
