import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import react from '@vitejs/plugin-react';
import { defineConfig, type Plugin } from 'vite';

const here = path.dirname(fileURLToPath(import.meta.url));

const brotli = promisify(zlib.brotliCompress);
const gzip = promisify(zlib.gzip);

/** Below this, a compressed copy saves less than the response headers it costs. */
const COMPRESS_FROM_BYTES = 1024;

/**
 * Writes `<file>.br` and `<file>.gz` beside each script and stylesheet the build emits, compressed once at their
 * strongest (brotli 11, gzip 9: too slow per request, free at build time). server/console/console-router.ts sends
 * them to browsers that accept them, so a clinic on a slow rural link loads a fraction of the bytes.
 */
function precompress(): Plugin {
  return {
    name: 'dte-precompress',
    apply: 'build',
    async writeBundle(options, bundle) {
      const files = Object.values(bundle).filter((file) => /\.(js|css)$/.test(file.fileName));
      await Promise.all(
        files.map(async (file) => {
          const source = Buffer.from(file.type === 'chunk' ? file.code : file.source);
          if (source.length < COMPRESS_FROM_BYTES) return;
          const target = path.join(options.dir!, file.fileName);
          const [br, gz] = await Promise.all([
            brotli(source, {
              params: {
                [zlib.constants.BROTLI_PARAM_QUALITY]: zlib.constants.BROTLI_MAX_QUALITY,
                [zlib.constants.BROTLI_PARAM_MODE]: zlib.constants.BROTLI_MODE_TEXT,
                [zlib.constants.BROTLI_PARAM_SIZE_HINT]: source.length,
              },
            }),
            gzip(source, { level: zlib.constants.Z_BEST_COMPRESSION }),
          ]);
          await Promise.all([writeFile(`${target}.br`, br), writeFile(`${target}.gz`, gz)]);
        }),
      );
    },
  };
}

/**
 * The console's build (`npm run build:console`): hashed files under assets/ beside index.html, served by the server
 * at /console/. Nothing is inlined into the page (no data: URIs, no inline script): its CSP allows only its own files.
 * Scripts and stylesheets also get brotli and gzip copies (precompress). The browser tests build into a folder of their own (DTE_CONSOLE_OUT_DIR) so a test run never swaps files under a
 * running server.
 */
export default defineConfig({
  root: here,
  base: '/console/',
  plugins: [react(), precompress()],
  logLevel: 'warn',
  build: {
    outDir: process.env.DTE_CONSOLE_OUT_DIR || path.resolve(here, '../.output/console'),
    emptyOutDir: true,
    assetsInlineLimit: 0,
    target: 'es2022',
    // Every browser the console supports preloads modules itself; the polyfill would only add code.
    modulePreload: { polyfill: false },
    rollupOptions: {
      // zod's sources carry /* @__PURE__ */ notes where Rollup cannot use them; it drops them and says so on every
      // build, which would only be noise in `npm start`'s output.
      onwarn(warning, warn) {
        if (warning.code !== 'INVALID_ANNOTATION') warn(warning);
      },
    },
  },
});
