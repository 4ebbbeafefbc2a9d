import { loadOnFirstUse } from '../load-on-first-use';

/*
 * The protocol libraries, loaded by the first sign-in (or metadata, or settings check) that needs one: an instance
 * whose practices sign in with passwords never holds them.
 */
export const nodeSaml = loadOnFirstUse(() => import('@node-saml/node-saml'));
export const nodeSamlXml = loadOnFirstUse(() => import('@node-saml/node-saml/lib/xml.js'));
export const openidClient = loadOnFirstUse(() => import('openid-client'));

export type NodeSaml = Awaited<ReturnType<typeof nodeSaml>>;
export type OpenidClient = Awaited<ReturnType<typeof openidClient>>;
