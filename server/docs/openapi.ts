import { OpenApiGeneratorV31 } from '@asteasolutions/zod-to-openapi';
import { SESSION_COOKIE_NAME } from '../../shared/api/auth';
import { ErrorEnvelope } from '../../shared/api/envelope';
import {
  API_KEY_SCHEME,
  ApiRegistry,
  MCP_BEARER_SCHEME,
  SESSION_SCHEME,
  STRIPE_SIGNATURE_SCHEME,
} from '../http/openapi-registry';
import { registerRoutes, type Route } from '../http/route';
import { registerWebhookDelivery } from '../webhooks/webhooks-routes';

/**
 * The OpenAPI 3.1 document, generated from the same zod schemas the server validates with. Each feature describes its
 * own operations beside its routes; here is only what they share: the security schemes their operations name and the
 * error envelope every error response refers to. `routes` are the ones the app mounts, in the route table's order.
 */
export function buildOpenApiDocument(routes: readonly Route[]): ReturnType<OpenApiGeneratorV31['generateDocument']> {
  const registry = new ApiRegistry();
  registry.registerComponent('securitySchemes', API_KEY_SCHEME, { type: 'apiKey', in: 'header', name: 'x-api-key' });
  registry.registerComponent('securitySchemes', SESSION_SCHEME, {
    type: 'apiKey',
    in: 'cookie',
    name: SESSION_COOKIE_NAME,
  });
  registry.registerComponent('securitySchemes', MCP_BEARER_SCHEME, {
    type: 'http',
    scheme: 'bearer',
    description: 'The API key (sk_live_…) as a bearer token: POST /mcp, as MCP clients send it',
  });
  registry.registerComponent('securitySchemes', STRIPE_SIGNATURE_SCHEME, {
    type: 'apiKey',
    in: 'header',
    name: 'Stripe-Signature',
    description:
      "Stripe's signature of the exact body with the webhook endpoint's signing secret (STRIPE_WEBHOOK_SECRET)",
  });
  registry.registerSchema(ErrorEnvelope);
  registerRoutes(registry, routes);
  registerWebhookDelivery(registry);

  return new OpenApiGeneratorV31(registry.documentDefinitions()).generateDocument({
    openapi: '3.1.0',
    info: {
      title: 'Disaster Telehealth Eligibility API',
      version: '1.0.0',
      description:
        'Whether an Australian postcode is covered by an active disaster declaration that exempts a GP telehealth consult from the established clinical relationship rule. Information only; not clinical or billing advice.',
    },
    servers: [{ url: '/' }],
  });
}
