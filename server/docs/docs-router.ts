import { Router } from 'express';
import swaggerUi from 'swagger-ui-express';
import { buildOpenApiDocument } from './openapi';

/** `GET /api/v1/openapi.json` and the human-readable page at `/docs` (Swagger UI, served from the package). */
export function docsRouter(): Router {
  const document = buildOpenApiDocument();
  const body = JSON.stringify(document);
  const router = Router();
  router.get('/api/v1/openapi.json', (_req, res) => {
    res.type('application/json').send(body);
  });
  router.use('/docs', swaggerUi.serveFiles(document), swaggerUi.setup(document, { customSiteTitle: 'Disaster Telehealth Eligibility API' }));
  return router;
}
