import { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import type { z } from 'zod';
import { ErrorEnvelope } from '../../shared/api/envelope';

/**
 * Where each feature describes its own operations, beside its routes (server/docs/openapi.ts builds the document).
 * The generator builds components from paths only: a schema the `webhooks` section alone refers to, or one listed
 * whatever refers to it, goes through `registerSchema` (the library's `register` wants zod extended with `.openapi`).
 */
export class ApiRegistry extends OpenAPIRegistry {
  readonly #schemas: z.ZodType[] = [];

  /** A component schema (named by its `.meta` id), listed whether or not a path refers to it. */
  registerSchema(schema: z.ZodType): void {
    this.#schemas.push(schema);
  }

  /** What the generator reads: the registered paths and components, and the listed schemas. */
  documentDefinitions(): OpenAPIRegistry['definitions'] {
    return [...this.definitions, ...this.#schemas.map((schema) => ({ type: 'schema' as const, schema }))];
  }
}

/** The names of the security schemes server/docs/openapi.ts registers. */
export const API_KEY_SCHEME = 'apiKey';
export const SESSION_SCHEME = 'session';
export const STRIPE_SIGNATURE_SCHEME = 'stripeSignature';
/** The API key as a bearer token, as MCP clients send it (POST /mcp only). */
export const MCP_BEARER_SCHEME = 'mcpBearer';

export type SecurityRequirements = { [scheme: string]: string[] }[];

/**
 * Declared on every operation, `[]` where no credentials are read, so that a missing declaration never reads as
 * "whatever the document's default is" (there is none).
 */
export const NO_AUTH: SecurityRequirements = [];
export const API_KEY_AUTH: SecurityRequirements = [{ [API_KEY_SCHEME]: [] }];
export const SESSION_AUTH: SecurityRequirements = [{ [SESSION_SCHEME]: [] }];
/** POST /mcp: the API key as a bearer token, or in x-api-key. */
export const MCP_AUTH: SecurityRequirements = [{ [MCP_BEARER_SCHEME]: [] }, { [API_KEY_SCHEME]: [] }];
/** Read when present, not required: `{}` is the alternative of sending no credentials at all. */
export const OPTIONAL_SESSION_AUTH: SecurityRequirements = [{ [SESSION_SCHEME]: [] }, {}];
/** The reads a practice's systems make too (sessionOrApiKey): the cookie session, or an API key counted like a check. */
export const SESSION_OR_API_KEY_AUTH: SecurityRequirements = [{ [SESSION_SCHEME]: [] }, { [API_KEY_SCHEME]: [] }];

export const jsonResponse = <T extends z.ZodType>(schema: T, description: string) => ({
  description,
  content: { 'application/json': { schema } },
});

/** Every error answers the one envelope, whatever the status. */
export const errorResponse = (description: string) => jsonResponse(ErrorEnvelope, description);

/** A required JSON body of this schema. */
export const jsonRequestBody = <T extends z.ZodType>(schema: T) => ({
  body: { required: true, content: { 'application/json': { schema } } },
});

/** What sessionOrApiKey answers a caller with `x-api-key` that it refuses. */
export const API_KEY_REFUSALS = {
  401: errorResponse('Sign in required, or (with x-api-key) Invalid API key'),
  403: errorResponse('API subscription is inactive (x-api-key)'),
  429: errorResponse('Rate limit exceeded (x-api-key, counted like the check); wait Retry-After seconds'),
};
