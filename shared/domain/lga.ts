import { z } from 'zod';

/** An LGA by name and ABS code: how a postcode's LGAs and a declaration's LGAs are named and compared. */
export const LgaRef = z.object({ lga_name: z.string(), lga_code: z.string() }).meta({ id: 'LgaRef' });
export type LgaRef = z.infer<typeof LgaRef>;

/**
 * Where a postcode's LGAs come from: the ABS population-weighted correspondence, or postcode locality data (less
 * certain: the advice then asks to confirm the LGA from the address).
 */
export const LgaSource = z.enum(['abs_correspondence', 'postcode_locality_data']);
export type LgaSource = z.infer<typeof LgaSource>;

/** One LGA a postcode spans. */
export interface AreaLga {
  lga_name: string;
  lga_code: string;
  /** Share 0..1 of the postcode's residents in this LGA; null when the source does not say. */
  share: number | null;
}
