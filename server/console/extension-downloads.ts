import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import express, { Router, type Response } from 'express';

/** Under /console/: the packaged extension and the policy examples, linked from the console's extension page. */
export const EXTENSION_ZIP_PATH = '/downloads/extension-chrome.zip';
export const POLICIES_PATH = '/downloads/policies';

/** `wxt zip`'s package for Chrome and Edge: `<name>-<version>-chrome.zip` (its sources zip ends in -sources.zip). */
const CHROME_ZIP = /-chrome\.zip$/;

const NOT_PACKAGED =
  'This server has no packaged extension.\n\n' +
  'Install the extension from the browser’s store, or ask the server’s operator to run `npm run zip:extension`, ' +
  'which writes the package this link serves.\n';

/**
 * docs/policies/ of the repository: two levels up from the bundled server (`.output/server/`) and from the sources
 * (`server/console/`) alike.
 */
export function defaultPoliciesDir(here: string = import.meta.dirname): string {
  return path.resolve(here, '../../docs/policies');
}

/** The newest Chrome package in `dir`, or null when there is none (never built, or the folder is missing). */
async function newestChromeZip(dir: string): Promise<string | null> {
  const names = await readdir(dir).catch(() => [] as string[]);
  const zips = await Promise.all(
    names
      .filter((name) => CHROME_ZIP.test(name))
      .map(async (name) => ({ file: path.join(dir, name), modified: (await stat(path.join(dir, name))).mtimeMs })),
  );
  zips.sort((a, b) => b.modified - a.modified);
  return zips[0]?.file ?? null;
}

function sendNotPackaged(res: Response): void {
  res.status(404).type('text/plain; charset=utf-8').setHeader('Cache-Control', 'no-store').send(NOT_PACKAGED);
}

/**
 * The packaged extension for a practice's IT provider, as `npm run zip:extension` left it in `outputDir` (.output/),
 * under one fixed address whatever its version; and the policy examples of docs/policies/. Downloads, not pages:
 * always revalidated (a new build replaces the package under the same address). No session needed: neither holds
 * anything of a clinic's.
 */
export function extensionDownloads(outputDir: string, policiesDir: string): Router {
  const router = Router();
  router.get(EXTENSION_ZIP_PATH, (_req, res, next) => {
    newestChromeZip(outputDir).then((zip) => {
      if (!zip) return sendNotPackaged(res);
      res.attachment(path.basename(zip));
      // Relative to `root`: sendFile refuses a path through a dot-folder (.output/) unless the root holds it.
      const sent = { root: outputDir, cacheControl: false, headers: { 'Cache-Control': 'no-cache' } };
      res.sendFile(path.basename(zip), sent, (error) => {
        // Replaced by a new build between the listing and the read: ask again.
        if (error && !res.headersSent) sendNotPackaged(res);
      });
    }, next);
  });
  router.use(
    POLICIES_PATH,
    express.static(policiesDir, {
      index: false,
      redirect: false,
      dotfiles: 'deny',
      setHeaders: (res, file) => {
        res.attachment(path.basename(file));
        res.setHeader('Cache-Control', 'no-cache');
      },
    }),
  );
  return router;
}
