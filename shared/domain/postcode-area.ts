import type { StateCode } from './declaration';
import type { AreaLga, LgaSource } from './lga';

/** What is known of a postcode: its suburbs, state and LGAs. */
export interface PostcodeArea {
  postcode: string;
  suburbs: string[];
  state: StateCode;
  /** Principal LGA first. Empty when the postcode's LGA is unknown. */
  lgas: AreaLga[];
  /**
   * Where `lgas` come from. Said by the index that built the area, never assumed: an LGA from postcode locality data
   * changes the advice (confirm the LGA from the address), so an area that forgot to say would not type-check.
   */
  lga_source: LgaSource;
  /**
   * Set by narrowing to a suburb that does not settle the LGA (the postcode data does not tell the postcode's suburbs
   * apart): the suburb asked about. The area keeps every LGA, and the answer says why.
   */
  undecided_suburb?: string;
}
