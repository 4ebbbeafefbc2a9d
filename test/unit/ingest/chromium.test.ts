import { describe, expect, it } from 'vitest';
import { CHROMIUM_MISSING, findChromium } from '../../../server/ingest/chromium';

describe('finding the Chromium that reads a script-drawn list', () => {
  const only =
    (...files: string[]) =>
    (file: string) =>
      files.includes(file);

  it("prefers the real binary to Debian's wrapper script, then the other system names", () => {
    expect(findChromium(undefined, only('/usr/bin/chromium', '/usr/lib/chromium/chromium'))).toBe(
      '/usr/lib/chromium/chromium',
    );
    expect(findChromium(undefined, only('/usr/bin/chromium-browser'))).toBe('/usr/bin/chromium-browser');
    expect(findChromium(undefined, only())).toBeNull();
  });

  it('takes CHROMIUM_PATH as given, and a wrong one is not papered over with another browser', () => {
    expect(findChromium('/opt/chrome/chrome', only('/opt/chrome/chrome', '/usr/bin/chromium'))).toBe(
      '/opt/chrome/chrome',
    );
    expect(findChromium('/opt/missing', only('/usr/bin/chromium'))).toBeNull();
  });

  it('says in one line what to install, never to download a browser build', () => {
    expect(CHROMIUM_MISSING).not.toContain('\n');
    expect(CHROMIUM_MISSING).toContain('apt-get install -y chromium');
    expect(CHROMIUM_MISSING).not.toMatch(/playwright install/);
  });
});
