import { z } from 'zod';
import type { SsoFlow } from './sso-flow-store';

/** A flow as the shared stores keep it (JSON): read back through this, so a record of another shape is no flow. */
const StoredSsoFlow = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('oidc'),
    organisationId: z.string(),
    codeVerifier: z.string(),
    nonce: z.string(),
    returnTo: z.string(),
  }),
  z.object({ kind: z.literal('saml'), organisationId: z.string(), requestId: z.string(), returnTo: z.string() }),
]);

/** The flow `stored` holds (a JSON text or an object, jsonb as node-postgres gives it), or undefined. */
export function parseSsoFlow(stored: unknown): SsoFlow | undefined {
  let value = stored;
  if (typeof stored === 'string') {
    try {
      value = JSON.parse(stored);
    } catch {
      return undefined;
    }
  }
  const parsed = StoredSsoFlow.safeParse(value);
  return parsed.success ? parsed.data : undefined;
}
