import { z } from 'zod';
import { CheckData, CheckRequest, DataMetadata } from './check';
import { IsoDate } from '../domain/dates';
import { API_ERRORS, type ApiErrorCode } from './errors';
import { endpoint } from './endpoint';

/** The most items one batch may hold (a 5,000-row list is sent as 10 batches). */
export const BATCH_MAX_ITEMS = 500;

/** The default of BATCH_ROWS_PER_DAY: rows an organisation may check in batches per Sydney day. */
export const DEFAULT_BATCH_ROWS_PER_DAY = 20_000;

const codes = Object.keys(API_ERRORS) as [ApiErrorCode, ...ApiErrorCode[]];

/**
 * As documented: a list of check questions. The server reads `items` as any 1–500 JSON values and judges each on its
 * own with CheckRequest, so one malformed item is that item's error and never fails the batch.
 */
export const CheckBatchRequest = z
  .object({
    items: z
      .array(CheckRequest)
      .min(1)
      .max(BATCH_MAX_ITEMS)
      .meta({
        description: `1 to ${BATCH_MAX_ITEMS} checks, each with the body of POST /api/v1/check-postcode; results[i] answers items[i]`,
        example: [
          { postcode: '2480' },
          { postcode: '2480', suburb: 'Lismore', date: '2025-03-10' },
          { postcode: '12AB' },
        ],
      }),
  })
  .meta({ id: 'CheckBatchRequest' });
export type CheckBatchRequest = z.infer<typeof CheckBatchRequest>;

/** The whole batch as the server first reads it: the items' own shapes are judged one by one. */
export const CheckBatchEnvelope = z.object({ items: z.array(z.unknown()).min(1).max(BATCH_MAX_ITEMS) });

export const BatchItemAnswer = z
  .object({
    success: z.literal(true),
    data: CheckData,
    checked_date: IsoDate.meta({
      description: 'The day (Australia/Sydney) this item was judged on: its date, or today',
    }),
  })
  .meta({ id: 'BatchItemAnswer' });
export type BatchItemAnswer = z.infer<typeof BatchItemAnswer>;

export const BatchItemError = z
  .object({
    success: z.literal(false),
    error: z.object({
      code: z
        .enum(codes)
        .meta({ description: 'As the single check answers it (invalid_postcode, postcode_not_found, …)' }),
      message: z.string(),
    }),
  })
  .meta({ id: 'BatchItemError' });
export type BatchItemError = z.infer<typeof BatchItemError>;

export const BatchItemResult = z.discriminatedUnion('success', [BatchItemAnswer, BatchItemError]).meta({
  id: 'BatchItemResult',
});
export type BatchItemResult = z.infer<typeof BatchItemResult>;

export const BatchMetadata = DataMetadata.extend({
  rows_per_day: z
    .number()
    .int()
    .meta({ description: "The organisation's daily allowance of batch rows (BATCH_ROWS_PER_DAY)" }),
  rows_left_today: z.number().int().nonnegative().meta({ description: 'Rows left today (Sydney) after this batch' }),
}).meta({ id: 'BatchMetadata' });
export type BatchMetadata = z.infer<typeof BatchMetadata>;

export const CheckBatchResponse = z
  .object({
    success: z.literal(true),
    data: z.object({ results: z.array(BatchItemResult) }),
    metadata: BatchMetadata,
  })
  .meta({ id: 'CheckBatchResponse' });
export type CheckBatchResponse = z.infer<typeof CheckBatchResponse>;

/** A list of postcodes checked at once (API key, or the console's session): the list page and desktop integrations. */
export const CHECK_BATCH_ENDPOINTS = {
  checkBatch: endpoint({
    method: 'post',
    path: '/api/v1/check-batch',
    body: CheckBatchRequest,
    response: CheckBatchResponse,
  }),
} as const;
