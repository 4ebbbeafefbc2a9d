import { Router } from 'express';
import swaggerUi from 'swagger-ui-express';
import { DOCUMENT_SECURITY_HEADERS, securityHeaders } from '../http/security-headers';
import { buildOpenApiDocument } from './openapi';

/** `GET /api/v1/openapi.json` and the human-readable page at `/docs` (Swagger UI, served from the package). */
export function docsRouter(): Router {
  const document = buildOpenApiDocument();
  const body = JSON.stringify(document);
  const router = Router();
  router.get('/api/v1/openapi.json', (_req, res) => {
    res.type('application/json').send(body);
  });
  // A web page, not JSON: helmet's full set, whose CSP lets the page load its own scripts and styles. Every name in
  // the API's set is also in this one, so nothing of the API's stricter policy is left behind to block the page.
  router.use('/docs', securityHeaders(DOCUMENT_SECURITY_HEADERS), swaggerUi.serveFiles(document), swaggerUi.setup(document, { customSiteTitle: 'Disaster Telehealth Eligibility API' }));
  return router;
}
