import path from 'node:path';
import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

const here = path.dirname(fileURLToPath(import.meta.url));

/**
 * The console's build (`npm run build:console`): hashed files under assets/ beside index.html, served by the server
 * at /console/. Nothing is inlined into the page (no data: URIs, no inline script): its CSP allows only its own files.
 * The browser tests build into a folder of their own (DTE_CONSOLE_OUT_DIR) so a test run never swaps files under a
 * running server.
 */
export default defineConfig({
  root: here,
  base: '/console/',
  plugins: [react()],
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
