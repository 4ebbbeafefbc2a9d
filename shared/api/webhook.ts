import { z } from 'zod';
import { Alert } from './alerts';
import { IsoTimestamp } from './keys';
import { plainText } from './text-fields';
import { endpoint } from './endpoint';

export const WebhookRequest = z
  .object({
    url: plainText().max(2000).meta({
      description: 'http(s) URL the alerts are POSTed to',
      example: 'https://clinic.example.com.au/hooks/dte',
    }),
  })
  .meta({ id: 'WebhookRequest' });
export type WebhookRequest = z.infer<typeof WebhookRequest>;

export const WebhookDelivery = z
  .object({
    status: z.enum(['pending', 'delivered', 'retrying', 'failed']).meta({
      description: 'pending: not tried yet; retrying: failed, tried again later; failed: given up after a day',
    }),
    attempts: z.number().int().nonnegative(),
    last_attempt_at: IsoTimestamp.nullable(),
    http_status: z.number().int().nullable(),
    error: z.string().nullable(),
    alert_count: z.number().int().nonnegative(),
  })
  .meta({ id: 'WebhookDelivery' });
export type WebhookDelivery = z.infer<typeof WebhookDelivery>;

export const WebhookData = z
  .object({
    url: z.string().nullable().meta({ description: 'null: no webhook set' }),
    created_at: IsoTimestamp.nullable(),
    last_delivery: WebhookDelivery.nullable(),
  })
  .meta({ id: 'Webhook' });
export type WebhookData = z.infer<typeof WebhookData>;

export const NewWebhookData = WebhookData.extend({
  secret: z.string().meta({
    description:
      'Signing secret, shown once: each delivery carries X-Signature: sha256=<hex HMAC-SHA256 of the raw body>',
  }),
}).meta({ id: 'NewWebhook' });
export type NewWebhookData = z.infer<typeof NewWebhookData>;

/** POST /api/v1/webhook/test: how the one test delivery went (it is not queued nor retried). */
export const WebhookTestData = z
  .object({
    delivered: z.boolean().meta({ description: 'The receiver answered 2xx' }),
    http_status: z.number().int().nullable(),
    error: z.string().nullable().meta({ description: 'Why nothing was answered (timed out, connection refused…)' }),
  })
  .meta({ id: 'WebhookTest' });
export type WebhookTestData = z.infer<typeof WebhookTestData>;

/**
 * What a webhook delivery POSTs (the raw body is what X-Signature signs): `alerts`, or `test` with no alerts when an
 * admin asks the console to send one (POST /api/v1/webhook/test).
 */
export const WebhookPayload = z
  .object({ event: z.enum(['alerts', 'test']), alerts: z.array(Alert) })
  .meta({ id: 'WebhookPayload' });
export type WebhookPayload = z.infer<typeof WebhookPayload>;

/** The subscription's webhook (one per organisation). */
export const WEBHOOK_ENDPOINTS = {
  set: endpoint({ method: 'put', path: '/api/v1/webhook', body: WebhookRequest, data: NewWebhookData }),
  read: endpoint({ method: 'get', path: '/api/v1/webhook', data: WebhookData }),
  remove: endpoint({ method: 'delete', path: '/api/v1/webhook', data: WebhookData }),
  test: endpoint({ method: 'post', path: '/api/v1/webhook/test', data: WebhookTestData }),
} as const;
