import { z } from 'zod';
import { CheckData, CheckResponse, DataMetadata, DisasterView, Location, Summary } from '../../shared/api/check';

/*
 * The check answer as the extension reads it. The server's schema (shared/api/check.ts) describes what this server
 * sends, including fields added after the product's first contract (SPEC.md Part A's envelope): a server that keeps to
 * that contract alone is still a server the extension must work with, so those fields are optional here and the views
 * show what there is. A field the views need to work at all stays required.
 *
 * Added after the contract, so optional:
 * - summary.coverage (all, some or none of the postcode's LGAs covered)
 * - location.lgas, location.lga_source (several LGAs per postcode; where the LGA comes from)
 * - disasters[].lgas (which of the postcode's LGAs a declaration covers)
 * - disasters[].instrument, disasters[].instrument_note (the State's own declaration or a DRFA activation; optional in
 *   the server's schema too)
 * - metadata.data_source, metadata.stale, metadata.checked_date
 */

export const ClientLocation = Location.partial({ lgas: true, lga_source: true });
export type ClientLocation = z.infer<typeof ClientLocation>;

export const ClientDisaster = DisasterView.partial({ lgas: true });
export type ClientDisaster = z.infer<typeof ClientDisaster>;

export const ClientSummary = Summary.partial({ coverage: true });
export type ClientSummary = z.infer<typeof ClientSummary>;

export const ClientCheckData = CheckData.extend({
  summary: ClientSummary,
  location: ClientLocation,
  disasters: z.array(ClientDisaster),
});
export type ClientCheckData = z.infer<typeof ClientCheckData>;

export const ClientMetadata = DataMetadata.partial({ data_source: true, stale: true, checked_date: true });
export type ClientMetadata = z.infer<typeof ClientMetadata>;

export const ClientCheckResponse = CheckResponse.extend({ data: ClientCheckData, metadata: ClientMetadata });
export type ClientCheckResponse = z.infer<typeof ClientCheckResponse>;
