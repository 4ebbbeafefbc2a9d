import { existsSync } from 'node:fs';

/**
 * Where Debian (and Ubuntu, and Google's package) put a Chromium that playwright-core can drive. The real binary
 * comes before Debian's /usr/bin/chromium wrapper script, which adds flags of its own. Never a downloaded build.
 */
export const CHROMIUM_CANDIDATES = [
  '/usr/lib/chromium/chromium',
  '/usr/bin/chromium',
  '/usr/bin/chromium-browser',
  '/usr/bin/google-chrome-stable',
  '/usr/bin/google-chrome',
] as const;

/** The one line an operator reads when the list needs a browser and there is none. */
export const CHROMIUM_MISSING =
  'No Chromium found to read the DisasterAssist list (its rows are filled in by a script in the browser): ' +
  "install Debian's chromium (`npm run setup:browser`, or as root `apt-get install -y chromium`) or set CHROMIUM_PATH";

/**
 * CHROMIUM_PATH when set (it must exist: a wrong path is a mistake to report, not to paper over), otherwise the
 * first system Chromium found; null when there is none.
 */
export function findChromium(configured?: string, exists: (file: string) => boolean = existsSync): string | null {
  if (configured) return exists(configured) ? configured : null;
  return CHROMIUM_CANDIDATES.find((file) => exists(file)) ?? null;
}

/** Chromium's switches for a headless reader on a server: no sandbox as root, and no calls home. */
export const HEADLESS_ARGS = [
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-default-apps',
  '--disable-extensions',
  '--mute-audio',
  '--renderer-process-limit=1',
] as const;
