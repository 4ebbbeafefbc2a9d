/**
 * Writes docs/policies/: copy-paste examples of the enterprise policy that installs the extension on a practice's
 * workstations and sets it up (the `3rdparty` configuration its managed storage reads), for Chrome and Edge on
 * Windows (.reg), Chrome and Chromium on Linux, the Google Admin console and Firefox. Everything comes from the one
 * schema, extension/public/managed-schema.json, and the extension IDs of wxt.config.ts: a property added to the schema
 * appears in every example, and a property of a type this script cannot write stops it with a message rather than
 * being left out.
 *
 * Registry types (Windows): text is REG_SZ, on/off REG_DWORD 1/0, an integer REG_DWORD, a list or an object REG_SZ
 * holding JSON — Chromium's registry reader (components/policy/core/common/registry_dict.cc, ConvertRegistryValue)
 * turns each into the type the extension's schema declares.
 *
 * Usage: npm run policy:examples              writes docs/policies/
 *        npm run policy:examples -- --check   exit 1 when docs/policies/ is not what the schema gives
 */
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { format, resolveConfig } from 'prettier';
import { CHROME_EXTENSION_ID, FIREFOX_ADDON_ID } from '../wxt.config';

export const ROOT = path.resolve(import.meta.dirname, '..');
export const SCHEMA_FILE = path.join(ROOT, 'extension/public/managed-schema.json');
export const POLICY_DIR = path.join(ROOT, 'docs/policies');

/** Where Chrome and Edge install from until a practice hosts its own package (which has its own update URL). */
export const CHROME_WEB_STORE_UPDATE_URL = 'https://clients2.google.com/service/update2/crx';
export const EDGE_ADD_ONS_UPDATE_URL = 'https://edge.microsoft.com/extensionwebstorebase/v1/crx';
/** addons.mozilla.org's address of an add-on's newest version, by add-on ID. */
export const AMO_INSTALL_URL = `https://addons.mozilla.org/firefox/downloads/latest/${FIREFOX_ADDON_ID}/latest.xpi`;

/**
 * The example value of each policy key: obviously a placeholder, yet valid for the key's schema so that an example
 * imported unchanged still loads (the API key is then shown as unusable, in words). A schema property without one
 * here, or one here without a property, stops the script.
 */
export const PLACEHOLDERS: Readonly<Record<string, unknown>> = {
  server_url: 'https://eligibility.example.com.au',
  api_key: "<the clinic's sk_live_ key>",
  sites: ['https://pms.example.com.au/*'],
  page_text: true,
  alerts: true,
};

/** The schema types this script can write in every format (registry, JSON). */
const KNOWN_TYPES = ['string', 'boolean', 'integer', 'array', 'object'] as const;
type KnownType = (typeof KNOWN_TYPES)[number];

interface SchemaNode {
  type: KnownType;
  items?: SchemaNode;
  properties?: Record<string, SchemaNode>;
}

/** One policy key: its name, what the schema says of it, and its example value. */
export interface PolicyProperty {
  name: string;
  title: string;
  description: string;
  type: KnownType;
  value: unknown;
}

class SchemaError extends Error {}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** A schema node this script can write, checked all the way down; anything else throws, naming where it is. */
function knownNode(node: unknown, where: string): SchemaNode {
  if (!isRecord(node)) throw new SchemaError(`${where} is not a schema object`);
  const type = node.type;
  if (typeof type !== 'string' || !(KNOWN_TYPES as readonly string[]).includes(type)) {
    throw new SchemaError(
      `${where} has type ${JSON.stringify(type ?? null)}, which scripts/policy-examples.ts cannot write as a policy ` +
        `(it knows ${KNOWN_TYPES.join(', ')}): teach it that type's registry and JSON forms first`,
    );
  }
  const known: SchemaNode = { type: type as KnownType };
  if (type === 'array') known.items = knownNode(node.items, `${where}.items`);
  if (type === 'object' && node.properties !== undefined) {
    if (!isRecord(node.properties)) throw new SchemaError(`${where}.properties is not an object`);
    known.properties = Object.fromEntries(
      Object.entries(node.properties).map(([key, child]) => [key, knownNode(child, `${where}.properties.${key}`)]),
    );
  }
  return known;
}

/** Whether `value` is valid for `node` (as Chrome's schema validation would take it). */
function fits(node: SchemaNode, value: unknown): boolean {
  switch (node.type) {
    case 'string':
      return typeof value === 'string';
    case 'boolean':
      return typeof value === 'boolean';
    case 'integer':
      // REG_DWORD holds 0 … 2^32-1; Chrome reads it as a signed int, so keep to what both agree on.
      return Number.isInteger(value) && (value as number) >= 0 && (value as number) <= 0x7fffffff;
    case 'array':
      return Array.isArray(value) && value.every((item) => fits(node.items!, item));
    case 'object':
      return (
        isRecord(value) &&
        Object.entries(value).every(([key, child]) => !node.properties?.[key] || fits(node.properties[key]!, child))
      );
  }
}

/** The schema's policy keys in its order, each with its example value. Throws on anything it cannot write. */
export function policyProperties(schema: unknown): PolicyProperty[] {
  if (!isRecord(schema) || schema.type !== 'object' || !isRecord(schema.properties)) {
    throw new SchemaError('managed-schema.json: the top level must be {"type": "object", "properties": {…}}');
  }
  const names = Object.keys(schema.properties);
  const extra = Object.keys(PLACEHOLDERS).filter((name) => !names.includes(name));
  if (extra.length > 0) {
    throw new SchemaError(`PLACEHOLDERS names keys the schema does not have: ${extra.join(', ')}`);
  }
  return names.map((name) => {
    const raw = schema.properties as Record<string, unknown>;
    const node = knownNode(raw[name], `managed-schema.json: property "${name}"`);
    if (!Object.hasOwn(PLACEHOLDERS, name)) {
      throw new SchemaError(`property "${name}" has no example value: add one to PLACEHOLDERS`);
    }
    const value = PLACEHOLDERS[name];
    if (!fits(node, value)) {
      throw new SchemaError(`the example value of "${name}" is not valid for its schema (${node.type})`);
    }
    const meta = raw[name] as Record<string, unknown>;
    return {
      name,
      title: typeof meta.title === 'string' ? meta.title : name,
      description: typeof meta.description === 'string' ? meta.description : '',
      type: node.type,
      value,
    };
  });
}

export function readSchema(file = SCHEMA_FILE): unknown {
  return JSON.parse(readFileSync(file, 'utf8'));
}

// ---------------------------------------------------------------------------------------------------------------------
// Windows registry (.reg)

/** A .reg string literal: backslashes and quotes escaped; ASCII only, so the file imports the same in any code page. */
function regString(text: string): string {
  if (!/^[\x20-\x7e]*$/.test(text)) throw new SchemaError(`not printable ASCII, cannot go in a .reg file: ${text}`);
  return `"${text.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
}

const dword = (n: number) => `dword:${n.toString(16).padStart(8, '0')}`;

/** One registry value of a policy key, with a comment line saying what it is and how it is typed. */
function regValue(property: PolicyProperty): string[] {
  const { name, title, type, value } = property;
  switch (type) {
    case 'string':
      return [`; ${title} (REG_SZ)`, `${regString(name)}=${regString(value as string)}`];
    case 'boolean':
      return [`; ${title} (REG_DWORD: 1 on, 0 off)`, `${regString(name)}=${dword(value ? 1 : 0)}`];
    case 'integer':
      return [`; ${title} (REG_DWORD)`, `${regString(name)}=${dword(value as number)}`];
    case 'array':
    case 'object':
      return [
        `; ${title} (REG_SZ holding a JSON ${type === 'array' ? 'list' : 'object'})`,
        `${regString(name)}=${regString(JSON.stringify(value))}`,
      ];
  }
}

interface RegBrowser {
  browser: string;
  policyRoot: string;
  store: string;
  updateUrl: string;
}

function regFile(target: RegBrowser, properties: PolicyProperty[]): string {
  const lines = [
    'Windows Registry Editor Version 5.00',
    '',
    `; Disaster Telehealth Eligibility for ${target.browser}: installed for every user of this computer, and set up.`,
    '; Generated by `npm run policy:examples` from extension/public/managed-schema.json; do not edit by hand.',
    "; Replace the example values with the clinic's before importing (as an administrator: reg import <this file>).",
    '',
    `; Install from ${target.store} and keep installed. The value name is the entry's number in the list:`,
    '; if this computer already force-installs other extensions, use the next free number instead of 1.',
    `[HKEY_LOCAL_MACHINE\\${target.policyRoot}\\ExtensionInstallForcelist]`,
    `"1"=${regString(`${CHROME_EXTENSION_ID};${target.updateUrl}`)}`,
    '',
    "; The extension's settings (its managed storage), one value per key.",
    `[HKEY_LOCAL_MACHINE\\${target.policyRoot}\\3rdparty\\extensions\\${CHROME_EXTENSION_ID}\\policy]`,
    ...properties.flatMap(regValue),
    '',
  ];
  // Windows line ends: what regedit itself writes.
  return lines.join('\r\n');
}

// ---------------------------------------------------------------------------------------------------------------------
// JSON formats

const settingsObject = (properties: PolicyProperty[]) =>
  Object.fromEntries(properties.map(({ name, value }) => [name, value]));

/** Chrome (/etc/opt/chrome/policies/managed/) and Chromium (/etc/chromium/policies/managed/) on Linux. */
const chromeLinux = (properties: PolicyProperty[]) => ({
  ExtensionInstallForcelist: [`${CHROME_EXTENSION_ID};${CHROME_WEB_STORE_UPDATE_URL}`],
  '3rdparty': { extensions: { [CHROME_EXTENSION_ID]: settingsObject(properties) } },
});

/** The Admin console's "Policy for extensions" field: each policy name maps to an object holding its "Value". */
const googleAdminConsole = (properties: PolicyProperty[]) =>
  Object.fromEntries(properties.map(({ name, value }) => [name, { Value: value }]));

/** Firefox's policies.json: install from addons.mozilla.org, icon on the toolbar, and the `3rdparty` settings. */
const firefoxPolicies = (properties: PolicyProperty[]) => ({
  policies: {
    ExtensionSettings: {
      [FIREFOX_ADDON_ID]: {
        installation_mode: 'force_installed',
        install_url: AMO_INSTALL_URL,
        default_area: 'navbar',
      },
    },
    '3rdparty': { Extensions: { [FIREFOX_ADDON_ID]: settingsObject(properties) } },
  },
});

async function prettierJson(file: string, value: unknown): Promise<string> {
  const filepath = path.join(POLICY_DIR, file);
  const options = (await resolveConfig(filepath)) ?? {};
  return format(JSON.stringify(value), { ...options, filepath });
}

/** Every example, by file name, from the given schema (default: the extension's). Writes nothing. */
export async function generatePolicyExamples(schema: unknown = readSchema()): Promise<Map<string, string>> {
  const properties = policyProperties(schema);
  const files = new Map<string, string>();
  files.set(
    'chrome-windows.reg',
    regFile(
      {
        browser: 'Google Chrome',
        policyRoot: 'SOFTWARE\\Policies\\Google\\Chrome',
        store: 'the Chrome Web Store',
        updateUrl: CHROME_WEB_STORE_UPDATE_URL,
      },
      properties,
    ),
  );
  files.set(
    'edge-windows.reg',
    regFile(
      {
        browser: 'Microsoft Edge',
        policyRoot: 'SOFTWARE\\Policies\\Microsoft\\Edge',
        store: 'Microsoft Edge Add-ons',
        updateUrl: EDGE_ADD_ONS_UPDATE_URL,
      },
      properties,
    ),
  );
  files.set('chrome-linux.json', await prettierJson('chrome-linux.json', chromeLinux(properties)));
  files.set(
    'google-admin-console.json',
    await prettierJson('google-admin-console.json', googleAdminConsole(properties)),
  );
  files.set('firefox-policies.json', await prettierJson('firefox-policies.json', firefoxPolicies(properties)));
  return files;
}

/** What differs between `dir` and the generated examples: one line per file; empty when they are the same. */
export function compareWithDirectory(files: Map<string, string>, dir = POLICY_DIR): string[] {
  let present: string[] = [];
  try {
    present = readdirSync(dir);
  } catch {
    // no folder yet: every file is missing
  }
  const problems: string[] = [];
  for (const [name, content] of files) {
    if (!present.includes(name)) problems.push(`${name}: missing`);
    else if (readFileSync(path.join(dir, name), 'utf8') !== content) problems.push(`${name}: out of date`);
  }
  for (const name of present) if (!files.has(name)) problems.push(`${name}: not generated (stale)`);
  return problems;
}

async function main(args: string[]): Promise<number> {
  const unknown = args.filter((arg) => arg !== '--check');
  if (unknown.length > 0) {
    process.stderr.write(`unknown argument ${unknown[0]}\nusage: npm run policy:examples [-- --check]\n`);
    return 2;
  }
  const files = await generatePolicyExamples();
  const relativeDir = path.relative(ROOT, POLICY_DIR);
  if (args.includes('--check')) {
    const problems = compareWithDirectory(files);
    if (problems.length === 0) {
      process.stdout.write(`${relativeDir}/ is up to date (${files.size} files)\n`);
      return 0;
    }
    process.stderr.write(
      `${relativeDir}/ does not match managed-schema.json:\n${problems.map((p) => `  ${p}\n`).join('')}` +
        'run: npm run policy:examples\n',
    );
    return 1;
  }
  mkdirSync(POLICY_DIR, { recursive: true });
  for (const name of readdirSync(POLICY_DIR)) {
    if (!files.has(name)) {
      rmSync(path.join(POLICY_DIR, name), { recursive: true, force: true });
      process.stdout.write(`removed ${relativeDir}/${name}\n`);
    }
  }
  for (const [name, content] of files) writeFileSync(path.join(POLICY_DIR, name), content);
  process.stdout.write(`wrote ${[...files.keys()].map((name) => `${relativeDir}/${name}`).join(', ')}\n`);
  return 0;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (err: unknown) => {
      process.stderr.write(`policy-examples: ${err instanceof Error ? err.message : String(err)}\n`);
      process.exit(1);
    },
  );
}
