import { z } from 'zod';
import { IsoDate } from './dates';
import type { LgaRef } from './lga';

export const STATE_CODES = ['NSW', 'VIC', 'QLD', 'SA', 'WA', 'TAS', 'NT', 'ACT'] as const;
export const StateCode = z.enum(STATE_CODES);
export type StateCode = z.infer<typeof StateCode>;

export function isStateCode(value: string): value is StateCode {
  return (STATE_CODES as readonly string[]).includes(value);
}

/** One LGA a declaration names. `code` is the ABS LGA code when a source gave one; names alone match within the state. */
export const DeclarationLga = z.object({
  name: z.string().min(1),
  code: z
    .string()
    .regex(/^[0-9]{5}$/)
    .nullable(),
});
export type DeclarationLga = z.infer<typeof DeclarationLga>;

/** A disaster declaration (a DRFA activation) as the store keeps it. */
export const Declaration = z.object({
  agrn: z.string().regex(/^[0-9]+$/),
  title: z.string().min(1),
  state: StateCode.nullable(),
  hazard_type: z.string().min(1).nullable(),
  start_date: IsoDate,
  end_date: IsoDate.nullable(),
  url: z.string().url().nullable(),
  lgas: z.array(DeclarationLga),
  sources: z.array(z.string().min(1)).default([]),
});
export type Declaration = z.infer<typeof Declaration>;

/** A declaration that concerns a postcode, with the postcode's LGAs it names. */
export interface RelatedDeclaration {
  declaration: Declaration;
  /** Which of the area's LGAs the declaration covers (non-empty). */
  lgas: LgaRef[];
}
