import { readFile } from 'node:fs/promises';
import path from 'node:path';
import express, { Router, type RequestHandler, type Response } from 'express';
import type { HelmetOptions } from 'helmet';
import { securityHeaders } from '../http/security-headers';
import { defaultPoliciesDir, extensionDownloads } from './extension-downloads';
import { precompressedAssets } from './precompressed';

/** Where the console is served; its client-side routes are the paths under it. */
export const CONSOLE_BASE = '/console/';

/**
 * The console's policy: everything it loads is its own built files (one script, one stylesheet, an icon), and the
 * only server it talks to is this one. No inline script or style and no eval: a text injected into the page by a
 * bug cannot run. Framed by nobody. helmet's other document headers (HSTS, nosniff, no referrer, COOP, CORP…) as for
 * /docs; upgrade-insecure-requests is left out because it would send a plain-HTTP local install's files to https://.
 */
export const CONSOLE_SECURITY_HEADERS: HelmetOptions = {
  contentSecurityPolicy: {
    useDefaults: false,
    directives: {
      defaultSrc: ["'none'"],
      scriptSrc: ["'self'"],
      styleSrc: ["'self'"],
      imgSrc: ["'self'"],
      fontSrc: ["'self'"],
      connectSrc: ["'self'"],
      baseUri: ["'none'"],
      formAction: ["'self'"],
      frameAncestors: ["'none'"],
      objectSrc: ["'none'"],
    },
  },
  xFrameOptions: { action: 'deny' },
};

/**
 * .output/console beside the bundled server (`.output/server/*.mjs`), or the repository's .output/console when the
 * server runs from source (server/console/).
 */
export function defaultConsoleDir(here: string = import.meta.dirname): string {
  const bundled = path.basename(here) === 'server' && path.basename(path.dirname(here)) === '.output';
  return bundled ? path.join(path.dirname(here), 'console') : path.resolve(here, '../../.output/console');
}

/** Vite names the files under assets/ by their content's hash: a new build has new names, so they never change. */
const HASHED_ASSETS = '/assets/';
const FOREVER = 'public, max-age=31536000, immutable';

const NOT_BUILT =
  'The console has not been built.\n\n' +
  'Run `npm run build:console` (`npm start` builds it together with the server), then reload this page.\n';

function sendNotBuilt(res: Response): void {
  res.status(503).type('text/plain; charset=utf-8').setHeader('Cache-Control', 'no-store').send(NOT_BUILT);
}

/**
 * A client-side route (a path without a file extension, outside assets/) gets index.html, which is always
 * revalidated so a new build is picked up at once. A missing file (`/console/assets/gone.js`) is left to the 404:
 * answering it with the page would hand HTML to a <script> and hide the real problem.
 */
function spaFallback(dir: string): RequestHandler {
  const indexFile = path.join(dir, 'index.html');
  return (req, res, next) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return next();
    if (req.path.startsWith(HASHED_ASSETS) || path.posix.extname(req.path) !== '') return next();
    readFile(indexFile).then(
      (html) => {
        res.status(200).type('html').setHeader('Cache-Control', 'no-cache').send(html);
      },
      (error: NodeJS.ErrnoException) => (error.code === 'ENOENT' ? sendNotBuilt(res) : next(error)),
    );
  };
}

/**
 * The console, a single-page app served from its built files at /console/ with its own security headers; `/` leads
 * to it. Works whether or not the console has been built: unbuilt, its pages say how to build it (503). Beside it,
 * the extension's downloads: the package `npm run zip:extension` writes into the same output folder (.output/).
 */
export function consoleRoutes(dir: string, policiesDir: string = defaultPoliciesDir()): Router {
  const router = Router();
  router.get('/', (_req, res) => res.redirect(302, CONSOLE_BASE));
  const files = express.static(dir, {
    index: false,
    redirect: false,
    setHeaders: (res, file) => {
      const hashed = file.startsWith(path.join(dir, 'assets') + path.sep);
      res.setHeader('Cache-Control', hashed ? FOREVER : 'no-cache');
    },
  });
  // Relative links in the page resolve against /console/, not /. (Routing is not strict: this sees /console/ too.)
  // The Location is the base and the query alone, never a slice of the raw target: an absolute-form target
  // (`GET http://evil.test/console`) is longer than its path, and its slice would make a path of the host.
  router.get('/console', (req, res, next) => {
    if (req.path !== '/console') return next();
    const query = req.originalUrl.indexOf('?');
    res.redirect(301, `${CONSOLE_BASE}${query === -1 ? '' : req.originalUrl.slice(query)}`);
  });
  router.use(
    CONSOLE_BASE,
    securityHeaders(CONSOLE_SECURITY_HEADERS),
    extensionDownloads(path.dirname(dir), policiesDir),
    precompressedAssets(dir, FOREVER),
    files,
    spaFallback(dir),
  );
  return router;
}
