import { stat } from 'node:fs/promises';
import path from 'node:path';
import type { RequestHandler } from 'express';

/** The copies console/vite.config.ts writes beside each script and stylesheet, best first. */
const ENCODINGS = [
  { name: 'br', suffix: '.br' },
  { name: 'gzip', suffix: '.gz' },
] as const;

/**
 * A hashed file's name as Vite writes it under assets/ (`index-JxiwFd-F.js`): nothing that could step out of the
 * folder, so a request never makes this look anywhere else.
 */
const ASSET_PATH = /^\/assets\/[\w.-]+\.(js|css)$/;

/**
 * Sends a hashed script or stylesheet as its brotli or gzip copy when the browser accepts that encoding (brotli first:
 * about 15 % smaller than gzip for the console's script) and the copy exists; anything else goes on to the plain
 * file. Every answer for such a file says `Vary: Accept-Encoding`, so a shared cache keeps one copy per encoding.
 * The Content-Type is the original file's; the Content-Length, ETag and ranges the copy's own.
 */
export function precompressedAssets(dir: string, cacheControl: string): RequestHandler {
  return (req, res, next) => {
    if ((req.method !== 'GET' && req.method !== 'HEAD') || !ASSET_PATH.test(req.path)) return next();
    res.vary('Accept-Encoding');
    const encoding = ENCODINGS.find(({ name }) => req.acceptsEncodings(name) === name);
    if (!encoding) return next();
    const file = path.join(dir, req.path) + encoding.suffix;
    stat(file).then(
      (found) => {
        if (!found.isFile()) return next();
        res.type(path.extname(req.path)).setHeader('Content-Encoding', encoding.name);
        // Relative to `root`: sendFile refuses a path with a dot-folder in it (npm start's `.output/console`) unless
        // the dot-folder is part of the root.
        const sent = { root: dir, cacheControl: false, headers: { 'Cache-Control': cacheControl } };
        res.sendFile(path.relative(dir, file), sent, (error) => {
          // Gone between the stat and the read (a new build): the plain file, or its 404, answers instead.
          if (!error || res.headersSent) return;
          res.removeHeader('Content-Encoding');
          next();
        });
      },
      () => next(),
    );
  };
}
