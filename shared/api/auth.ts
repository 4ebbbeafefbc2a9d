import { z } from 'zod';

export const LoginRequest = z
  .object({
    email: z.string().trim().toLowerCase().email().max(254),
    password: z.string().min(1).max(1024),
  })
  .meta({ id: 'LoginRequest' });
export type LoginRequest = z.infer<typeof LoginRequest>;

export const SessionData = z
  .object({
    authenticated: z.boolean(),
    account: z.object({ id: z.string(), email: z.string() }).nullable(),
    expires_at: z.string().nullable(),
  })
  .meta({ id: 'Session' });
export type SessionData = z.infer<typeof SessionData>;
