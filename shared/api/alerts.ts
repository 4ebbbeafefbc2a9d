import { z } from 'zod';
import { Coverage, Postcode } from './check';
import { IsoTimestamp } from './keys';
import { endpoint } from './endpoint';

export const AlertKind = z
  .enum(['newly_eligible', 'no_longer_eligible', 'declaration_added', 'declaration_ended'])
  .meta({
    id: 'AlertKind',
    description:
      'newly_eligible: a catchment postcode became eligible; no_longer_eligible: it no longer is; declaration_added: ' +
      'one more active declaration covers an eligible postcode; declaration_ended: one of several ended',
  });
export type AlertKind = z.infer<typeof AlertKind>;

export const Alert = z
  .object({
    id: z
      .string()
      .regex(/^[0-9]+$/)
      .meta({ description: 'Increasing; pass the last one seen as `since`' }),
    created_at: IsoTimestamp,
    kind: AlertKind,
    postcode: Postcode,
    lga_name: z.string(),
    agrn: z.string(),
    title: z.string().meta({ description: "The declaration's title" }),
    text: z.string().meta({ description: 'Plain sentences for the front desk, read as they are' }),
    coverage: Coverage.optional(),
  })
  .meta({
    id: 'Alert',
    description:
      "One change of a catchment postcode after a refresh. `coverage`: all, some or none of the postcode's LGAs " +
      'covered by an active declaration after the change; `some` is eligible only for the patients living in a ' +
      'covered LGA, which the text names. Absent on alerts recorded before it was added.',
  });
export type Alert = z.infer<typeof Alert>;

export const AlertsQuery = z.object({
  since: z
    .string()
    .regex(/^[0-9]{1,15}$/)
    .optional()
    .meta({ description: 'Only alerts after this alert id (default: all kept, 90 days)' }),
});

export const AlertsData = z.object({ alerts: z.array(Alert) }).meta({ id: 'Alerts' });
export type AlertsData = z.infer<typeof AlertsData>;

/** How long alerts are kept. */
export const ALERT_RETENTION_DAYS = 90;

/** The catchment's alerts, newest first, after `since`. */
export const ALERT_ENDPOINTS = {
  list: endpoint({ method: 'get', path: '/api/v1/alerts', query: AlertsQuery, data: AlertsData }),
} as const;
