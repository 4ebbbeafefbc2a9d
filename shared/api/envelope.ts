import { z } from 'zod';
import { API_ERRORS, type ApiErrorCode } from './errors';

const codes = Object.keys(API_ERRORS) as [ApiErrorCode, ...ApiErrorCode[]];

export const ErrorEnvelope = z
  .object({
    success: z.literal(false),
    error: z.object({
      code: z.enum(codes),
      message: z.string(),
      details: z.array(z.string()).optional().meta({
        description: 'The offending values, where there are several (invalid_postcode on PUT /api/v1/catchment)',
      }),
    }),
  })
  .meta({ id: 'Error', description: 'Every error, whatever the status' });
export type ErrorEnvelope = z.infer<typeof ErrorEnvelope>;

export function successEnvelope<T extends z.ZodType>(data: T) {
  return z.object({ success: z.literal(true), data });
}

export function errorBody(
  code: ApiErrorCode,
  message: string = API_ERRORS[code].message,
  details?: string[],
): ErrorEnvelope {
  return { success: false, error: details ? { code, message, details } : { code, message } };
}
