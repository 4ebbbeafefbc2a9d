import { z } from 'zod';
import { isAustralianPostcode } from './postcode';
import { plainText } from './text-fields';
import { IsoDate } from '../domain/dates';
import { StateCode } from '../domain/declaration';
import { LgaRef, LgaSource } from '../domain/lga';
import { endpoint } from './endpoint';

export const StatusColor = z.enum(['green', 'amber', 'red']).meta({
  id: 'StatusColor',
  description: 'green: active and recent; amber: active for 2 or more years; red: not eligible / not active',
});
export type StatusColor = z.infer<typeof StatusColor>;

export const Postcode = z
  .string()
  .refine(isAustralianPostcode, { message: 'Invalid postcode format' })
  .meta({ description: '4 ASCII digits within 0200–0299 or 0800–9999', example: '4000' });

/** The first day a historical check may ask about (invalid_date's message names it too). */
export const FIRST_CHECK_DATE = '2006-01-01';

export const CheckRequest = z
  .object({
    postcode: Postcode,
    // The declaration history (the DRFA activation CSV) begins in 2006: an earlier date has no answer to give.
    date: IsoDate.refine((date) => date >= FIRST_CHECK_DATE)
      .optional()
      .meta({
        description: `Historical check for a claim audit (YYYY-MM-DD, Australia/Sydney, from ${FIRST_CHECK_DATE}, never in the future). Default: today.`,
        example: '2025-03-10',
      }),
    suburb: plainText().min(1).max(100).optional().meta({
      description: "Narrows a postcode that spans several LGAs to this suburb's LGA",
      example: 'Brisbane City',
    }),
  })
  .meta({ id: 'CheckRequest' });
export type CheckRequest = z.infer<typeof CheckRequest>;

/**
 * How much of the place asked about the active declarations cover. `is_eligible` is true for `some` too (a declaration
 * covers one of the postcode's council areas), so a client that shows a tick for `is_eligible` alone tells a clinic
 * "yes" for a patient who may live in the uncovered part: `some` is its own state.
 */
export const Coverage = z.enum(['all', 'some', 'none']).meta({
  id: 'Coverage',
  description:
    "all: an active declaration covers every LGA of the postcode (or the asked suburb's LGA); some: it covers some of " +
    "them, and the patient's LGA decides (confirm it from the address); none: no active declaration covers it, or the " +
    'LGA is unknown',
});
export type Coverage = z.infer<typeof Coverage>;

export const Summary = z
  .object({
    is_eligible: z.boolean(),
    status_color: StatusColor,
    coverage: Coverage,
    headline_text: z.string(),
    medicare_status_text: z.string(),
    clinical_decision_support: z.array(z.string()),
  })
  .meta({ id: 'Summary' });
export type Summary = z.infer<typeof Summary>;

export const Location = z
  .object({
    postcode: z.string(),
    suburb: z.string().meta({ description: 'Suburbs of the postcode, a long list cut with a trailing "…"' }),
    state: StateCode,
    lga_name: z.string().meta({ description: 'The principal LGA (largest share of residents)' }),
    lga_code: z.string(),
    lgas: z.array(LgaRef).meta({ description: 'Every LGA the postcode spans, principal first' }),
    lga_source: LgaSource.nullable().meta({
      description:
        'Where lga_name, lga_code and lgas come from. abs_correspondence: the ABS population-weighted postcode → LGA ' +
        'correspondence (principal LGA = largest share of residents; every LGA with at least 1 % listed). ' +
        'postcode_locality_data: the postcode is not in that correspondence (PO boxes, newer postcodes), so the LGA ' +
        "comes from postcode locality data and is less certain: the summary asks to confirm the patient's LGA from " +
        'their address. null: the LGA could not be determined (lgas is empty).',
    }),
  })
  .meta({ id: 'Location' });
export type Location = z.infer<typeof Location>;

/**
 * The legal instrument behind a declaration's LGA list (shared/eligibility/instrument.ts decides it per state):
 * NSW's natural disaster declarations carry the AGRN of the DRFA activation; elsewhere the list is the DRFA activation.
 */
export const Instrument = z.enum(['state_declaration', 'drfa_activation']).meta({
  id: 'Instrument',
  description:
    "state_declaration: the State's own natural disaster declaration carries this reference (NSW issues its declarations with the AGRN); " +
    'drfa_activation: the LGA list is the Disaster Recovery Funding Arrangements activation, which usually but not always follows a State or Territory declaration — confirm against the State source',
});
export type Instrument = z.infer<typeof Instrument>;

export const DisasterView = z
  .object({
    agrn: z.string(),
    title: z.string(),
    hazard_type: z.string().nullable(),
    start_date: IsoDate,
    end_date: IsoDate.nullable(),
    url: z.string().nullable(),
    status_color: StatusColor,
    is_active: z.boolean(),
    display_date: z.string().regex(/^[0-9]{2}\/[0-9]{2}\/[0-9]{4}$/),
    lgas: z.array(LgaRef).meta({ description: "The postcode's LGAs this declaration covers" }),
    // Added after the seed contract: optional, so that a client accepts an answer without them.
    instrument: Instrument.optional(),
    instrument_note: z
      .string()
      .optional()
      .meta({ description: 'The instrument in words, with what to confirm (always sent with `instrument`)' }),
  })
  .meta({ id: 'Disaster' });
export type DisasterView = z.infer<typeof DisasterView>;

export const CheckData = z
  .object({
    summary: Summary,
    location: Location,
    clinical_documentation: z.object({ proforma_text: z.string() }),
    disasters: z.array(DisasterView),
    disclaimers: z.array(z.string()),
  })
  .meta({ id: 'CheckData' });
export type CheckData = z.infer<typeof CheckData>;

export const DataMetadata = z
  .object({
    last_updated: z.string().meta({ description: 'ISO 8601 UTC time of the last successful data refresh' }),
    data_source: z.literal('disasterassist.gov.au'),
    stale: z.boolean().meta({ description: 'true when the last successful refresh is older than 48 hours' }),
    checked_date: IsoDate.meta({ description: 'The day (Australia/Sydney) the declarations were judged on' }),
  })
  .meta({ id: 'Metadata' });
export type DataMetadata = z.infer<typeof DataMetadata>;

export const CheckResponse = z
  .object({ success: z.literal(true), data: CheckData, metadata: DataMetadata })
  .meta({ id: 'CheckResponse' });
export type CheckResponse = z.infer<typeof CheckResponse>;

/** The check by API key (SPEC.md), and the console's check by hand over the cookie session: one question, one answer. */
export const CHECK_ENDPOINTS = {
  check: endpoint({ method: 'post', path: '/api/v1/check-postcode', body: CheckRequest, response: CheckResponse }),
  checkByHand: endpoint({
    method: 'post',
    path: '/api/v1/session/check-postcode',
    body: CheckRequest,
    response: CheckResponse,
  }),
} as const;
