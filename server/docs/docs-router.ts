import { Router, type RequestHandler } from 'express';
import swaggerUi from 'swagger-ui-express';
import { DOCUMENT_SECURITY_HEADERS, securityHeaders } from '../http/security-headers';
import { DOCS_PAGE_CSS, DOCS_SCRIPT_FILE, NAME_UNNAMED_CONTROLS } from './docs-accessibility';
import type { Route } from '../http/route';
import { buildOpenApiDocument } from './openapi';

export interface ApiDocs {
  /** GET /: the OpenAPI document, as JSON. */
  openApi: Router;
  /** The human-readable page (Swagger UI, served from the package) and its files. */
  page: RequestHandler[];
}

/** The API's documentation of `routes`, built once: the OpenAPI document and the page that shows it. */
export function apiDocs(routes: readonly Route[]): ApiDocs {
  const document = buildOpenApiDocument(routes);
  const body = JSON.stringify(document);
  const openApi = Router().get('/', (_req, res) => {
    res.type('application/json').send(body);
  });
  // A web page, not JSON: helmet's full set, whose CSP lets the page load its own scripts and styles. Every name in
  // the API's set is also in this one, so nothing of the API's stricter policy is left behind to block the page.
  // Without deep links: Swagger UI puts each operation's link inside the button that opens it (a control in a
  // control, which screen readers and keyboards cannot use apart). Without syntax colours: its themes colour some
  // values (numbers, literals) below 4.5:1 on their dark background, in inline styles no stylesheet can outweigh.
  const swaggerOptions = { deepLinking: false, syntaxHighlight: { activated: false } };
  const page = [
    securityHeaders(DOCUMENT_SECURITY_HEADERS),
    Router().get(`/${DOCS_SCRIPT_FILE}`, (_req, res) => {
      res.type('text/javascript').send(NAME_UNNAMED_CONTROLS);
    }),
    ...swaggerUi.serveFiles(document, { swaggerOptions }),
    swaggerUi.setup(document, {
      customSiteTitle: 'Disaster Telehealth Eligibility API',
      customCss: DOCS_PAGE_CSS,
      customJs: `./${DOCS_SCRIPT_FILE}`,
      swaggerOptions,
    }),
  ];
  return { openApi, page };
}
