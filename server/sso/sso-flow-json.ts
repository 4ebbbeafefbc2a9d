import { z } from 'zod';
import type { SsoFlow } from './sso-flow-store';

/** Every flow's: its organisation, the console's return path, the hash of the browser binding (none: no flow). */
const common = { organisationId: z.string(), returnTo: z.string(), binding: z.string().min(1) };

/**
 * A flow as the shared stores keep it (JSON): read back through this, so a record of another shape is no flow — one
 * kept before flows were bound to their browser included.
 */
const StoredSsoFlow = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('oidc'), ...common, codeVerifier: z.string(), nonce: z.string() }),
  z.object({ kind: z.literal('saml'), ...common, requestId: z.string() }),
  z.object({ kind: z.literal('saml_result'), ...common, email: z.string() }),
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
