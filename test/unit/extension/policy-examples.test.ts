import { readFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  AMO_INSTALL_URL,
  CHROME_WEB_STORE_UPDATE_URL,
  EDGE_ADD_ONS_UPDATE_URL,
  PLACEHOLDERS,
  POLICY_DIR,
  ROOT,
  compareWithDirectory,
  generatePolicyExamples,
  policyProperties,
  readSchema,
} from '../../../scripts/policy-examples';
import { CHROME_EXTENSION_ID, FIREFOX_ADDON_ID } from '../../../wxt.config';

/** The schema's properties as the extension declares them (name → type). */
const schema = readSchema() as { properties: Record<string, { type: string }> };
const schemaTypes = Object.entries(schema.properties).map(([name, node]) => [name, node.type] as const);

type RegValue = { kind: 'REG_SZ'; text: string } | { kind: 'REG_DWORD'; number: number };

/** A .reg file as regedit reads it: key path → value name → typed value. Comments and blank lines skipped. */
function parseReg(text: string): Map<string, Map<string, RegValue>> {
  const keys = new Map<string, Map<string, RegValue>>();
  let current: Map<string, RegValue> | undefined;
  const lines = text.split('\r\n');
  expect(lines[0]).toBe('Windows Registry Editor Version 5.00');
  for (const line of lines.slice(1)) {
    if (line === '' || line.startsWith(';')) continue;
    const key = /^\[(.+)\]$/.exec(line);
    if (key) {
      current = new Map();
      keys.set(key[1]!, current);
      continue;
    }
    const value = /^"((?:[^"\\]|\\.)*)"=(?:"((?:[^"\\]|\\.)*)"|dword:([0-9a-f]{8}))$/.exec(line);
    if (!value || !current) throw new Error(`not a .reg value line: ${line}`);
    const unescape = (s: string) => s.replace(/\\(.)/g, '$1');
    current.set(
      unescape(value[1]!),
      value[3] !== undefined
        ? { kind: 'REG_DWORD', number: parseInt(value[3], 16) }
        : { kind: 'REG_SZ', text: unescape(value[2]!) },
    );
  }
  return keys;
}

/**
 * What Chrome makes of a registry value for a schema type (Chromium's ConvertRegistryValue): text stays text, a DWORD
 * is a boolean (non-zero) or an integer, a string holding JSON is a list or an object. Anything else: undefined.
 */
function chromeReads(type: string, value: RegValue): unknown {
  if (type === 'string') return value.kind === 'REG_SZ' ? value.text : undefined;
  if (type === 'boolean') return value.kind === 'REG_DWORD' ? value.number !== 0 : undefined;
  if (type === 'integer') return value.kind === 'REG_DWORD' ? value.number : undefined;
  if (value.kind !== 'REG_SZ') return undefined;
  const parsed: unknown = JSON.parse(value.text);
  if (type === 'array') return Array.isArray(parsed) ? parsed : undefined;
  return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? parsed : undefined;
}

function hasType(type: string, value: unknown): boolean {
  switch (type) {
    case 'string':
      return typeof value === 'string';
    case 'boolean':
      return typeof value === 'boolean';
    case 'integer':
      return Number.isInteger(value);
    case 'array':
      return Array.isArray(value);
    case 'object':
      return typeof value === 'object' && value !== null && !Array.isArray(value);
    default:
      return false;
  }
}

describe('policy examples (docs/policies, npm run policy:examples)', () => {
  let files: Map<string, string>;
  beforeAll(async () => {
    files = await generatePolicyExamples();
  });

  const file = (name: string) => {
    const text = files.get(name);
    if (text === undefined) throw new Error(`${name} was not generated`);
    return text;
  };

  it('are what is committed: npm run policy:examples -- --check passes', () => {
    expect(compareWithDirectory(files)).toEqual([]);
    expect([...files.keys()].sort()).toEqual([
      'chrome-linux.json',
      'chrome-windows.reg',
      'edge-windows.reg',
      'firefox-policies.json',
      'google-admin-console.json',
    ]);
  });

  it.each([
    ['chrome-windows.reg', 'SOFTWARE\\Policies\\Google\\Chrome', CHROME_WEB_STORE_UPDATE_URL],
    ['edge-windows.reg', 'SOFTWARE\\Policies\\Microsoft\\Edge', EDGE_ADD_ONS_UPDATE_URL],
  ])('%s force-installs the extension and sets every schema key, typed as Chrome reads it', (name, root, updateUrl) => {
    const text = file(name);
    expect(text).toMatch(/^[\x20-\x7e\r\n]*$/); // ASCII, so it imports alike whatever the code page
    expect(text.replace(/\r\n/g, '')).not.toMatch(/[\r\n]/); // Windows line ends only
    const keys = parseReg(text);
    expect([...keys.keys()]).toEqual([
      `HKEY_LOCAL_MACHINE\\${root}\\ExtensionInstallForcelist`,
      `HKEY_LOCAL_MACHINE\\${root}\\3rdparty\\extensions\\${CHROME_EXTENSION_ID}\\policy`,
    ]);
    const [forcelist, policy] = [...keys.values()];
    expect(Object.fromEntries(forcelist!)).toEqual({
      '1': { kind: 'REG_SZ', text: `${CHROME_EXTENSION_ID};${updateUrl}` },
    });
    expect([...policy!.keys()]).toEqual(schemaTypes.map(([key]) => key));
    for (const [key, type] of schemaTypes) {
      const raw = policy!.get(key)!;
      expect(raw.kind, key).toBe(type === 'boolean' || type === 'integer' ? 'REG_DWORD' : 'REG_SZ');
      const value = chromeReads(type, raw);
      expect(hasType(type, value), `${name}: ${key} read as ${type}`).toBe(true);
      expect(value, key).toEqual(PLACEHOLDERS[key]);
    }
  });

  it('chrome-linux.json force-installs the extension and sets every schema key under 3rdparty.extensions', () => {
    const policy = JSON.parse(file('chrome-linux.json'));
    expect(policy.ExtensionInstallForcelist).toEqual([`${CHROME_EXTENSION_ID};${CHROME_WEB_STORE_UPDATE_URL}`]);
    expect(Object.keys(policy['3rdparty'].extensions)).toEqual([CHROME_EXTENSION_ID]);
    const settings = policy['3rdparty'].extensions[CHROME_EXTENSION_ID];
    expect(Object.keys(settings)).toEqual(schemaTypes.map(([key]) => key));
    for (const [key, type] of schemaTypes) expect(hasType(type, settings[key]), key).toBe(true);
  });

  it('google-admin-console.json gives every schema key as {"Value": …}', () => {
    const policy = JSON.parse(file('google-admin-console.json'));
    expect(Object.keys(policy)).toEqual(schemaTypes.map(([key]) => key));
    for (const [key, type] of schemaTypes) {
      expect(Object.keys(policy[key]), key).toEqual(['Value']);
      expect(hasType(type, policy[key].Value), key).toBe(true);
    }
  });

  it('firefox-policies.json force-installs the add-on and sets every schema key under 3rdparty.Extensions', () => {
    const { policies } = JSON.parse(file('firefox-policies.json'));
    expect(policies.ExtensionSettings).toEqual({
      [FIREFOX_ADDON_ID]: {
        installation_mode: 'force_installed',
        install_url: AMO_INSTALL_URL,
        default_area: 'navbar',
      },
    });
    expect(AMO_INSTALL_URL).toBe(`https://addons.mozilla.org/firefox/downloads/latest/${FIREFOX_ADDON_ID}/latest.xpi`);
    expect(Object.keys(policies['3rdparty'].Extensions)).toEqual([FIREFOX_ADDON_ID]);
    const settings = policies['3rdparty'].Extensions[FIREFOX_ADDON_ID];
    expect(Object.keys(settings)).toEqual(schemaTypes.map(([key]) => key));
    for (const [key, type] of schemaTypes) expect(hasType(type, settings[key]), key).toBe(true);
  });

  it("name the extension only by wxt.config.ts's IDs", () => {
    expect(CHROME_EXTENSION_ID).toMatch(/^[a-p]{32}$/);
    for (const [name, text] of files) {
      const chromeIds = new Set(text.match(/(?<![a-z])[a-p]{32}(?![a-z])/g) ?? []);
      const firefoxIds = new Set(text.match(/[\w.-]+@[\w.-]+/g) ?? []);
      if (name.startsWith('firefox')) {
        expect([...chromeIds], name).toEqual([]);
        expect([...firefoxIds], name).toEqual([FIREFOX_ADDON_ID]);
      } else if (name === 'google-admin-console.json') {
        // the ID is chosen in the console itself; the JSON holds only the settings
        expect([...chromeIds, ...firefoxIds], name).toEqual([]);
      } else {
        expect([...chromeIds], name).toEqual([CHROME_EXTENSION_ID]);
        expect([...firefoxIds], name).toEqual([]);
      }
    }
  });

  it('stop on a schema type they cannot write, and on a key without an example value', () => {
    const withProperty = (property: Record<string, unknown>) => ({
      ...schema,
      properties: { ...schema.properties, added: property },
    });
    expect(() => policyProperties(withProperty({ type: 'number' }))).toThrow(/"added" has type "number"/);
    expect(() => policyProperties(withProperty({ title: 'no type' }))).toThrow(/"added" has type null/);
    expect(() => policyProperties(withProperty({ type: 'array', items: { type: 'null' } }))).toThrow(
      /"added"\.items has type "null"/,
    );
    expect(() => policyProperties(withProperty({ type: 'string' }))).toThrow(/"added" has no example value/);
    const { sites: _sites, ...withoutSites } = schema.properties;
    expect(() => policyProperties({ ...schema, properties: withoutSites })).toThrow(
      /keys the schema does not have: sites/,
    );
    expect(policyProperties(schema).map((p) => p.name)).toEqual(schemaTypes.map(([key]) => key));
  });

  it("README's deployment section lists every key and shows chrome-windows.reg as generated", () => {
    const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
    const start = readme.indexOf("### Deploying to a practice's workstations");
    expect(start).toBeGreaterThan(-1);
    const end = readme.indexOf('\n#', start + 1);
    const section = readme.slice(start, end === -1 ? undefined : end);
    for (const [key] of schemaTypes) expect(section, key).toContain(`| \`${key}\` |`);
    for (const name of files.keys()) {
      expect(section, name).toContain(`(${path.relative(ROOT, path.join(POLICY_DIR, name))})`);
    }
    const block = /```reg\n([\s\S]*?)```/.exec(section);
    expect(block?.[1]).toBe(file('chrome-windows.reg').replace(/\r\n/g, '\n'));
  });
});
