import { randomUUID } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import { PLAN_NAME } from '../../shared/api/keys';
import { keyPrefix } from '../../shared/domain/api-key-format';
import type { Declaration, StateCode } from '../../shared/domain/declaration';
import { hashPassword } from '../../server/accounts/passwords';
import { NOT_BILLED } from '../../server/accounts/account-service';
import { generateApiKey, hashApiKey } from '../../server/keys/api-key';
import {
  buildPostcodeIndex,
  loadBundledLocalityRows,
  type LocalityRow,
  type PostcodeIndex,
} from '../../server/postcodes/postcode-index';
import { accountsDocument } from '../../server/accounts/accounts-document';
import { declarationsDocument } from '../../server/declarations/declarations-document';
import { keysDocument } from '../../server/keys/keys-document';
import { openJsonDocument } from '../../server/storage/document';

/**
 * The bundled localities, their index, every postcode it knows and the benches' sample of 64: a spread of postcodes
 * for the requests, every state and both eligible and not.
 */
export async function benchPostcodes(): Promise<{
  rows: LocalityRow[];
  index: PostcodeIndex;
  allPostcodes: string[];
  sample: string[];
}> {
  const rows = await loadBundledLocalityRows();
  const index = buildPostcodeIndex(rows);
  const allPostcodes = [...new Set(rows.map((r) => r.postcode))].filter((p) => index.get(p));
  const sample = allPostcodes.filter((_, i) => i % Math.ceil(allPostcodes.length / 64) === 0);
  return { rows, index, allPostcodes, sample };
}

const HAZARDS = ['Flood', 'Storm', 'Bushfire', 'Cyclone', 'Flood, Storm', 'Rainfall', 'Severe Weather'];

/** A small deterministic PRNG (mulberry32), so every run benchmarks the same data. */
function prng(seed: number): () => number {
  return () => {
    seed |= 0;
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function isoDay(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/**
 * Synthetic declarations shaped like the real set: each names 1–15 LGAs of one state, starts between 2006 and now,
 * and most have ended. `count` 900 over the ~550 LGAs the postcode data knows is the real order of magnitude.
 */
export function syntheticDeclarations(
  postcodes: PostcodeIndex,
  allPostcodes: string[],
  count: number,
  options: { seed?: number; firstAgrn?: number; avoidLgas?: ReadonlySet<string> } = {},
): Declaration[] {
  const random = prng(options.seed ?? 42);
  const lgasByState = new Map<StateCode, Map<string, string>>();
  for (const pc of allPostcodes) {
    const area = postcodes.get(pc)!;
    for (const lga of area.lgas) {
      if (options.avoidLgas?.has(lga.lga_code)) continue;
      const m = lgasByState.get(area.state) ?? new Map<string, string>();
      m.set(lga.lga_code, lga.lga_name);
      lgasByState.set(area.state, m);
    }
  }
  const states = [...lgasByState.keys()].filter((s) => lgasByState.get(s)!.size > 0);
  const from = Date.UTC(2006, 0, 1);
  const to = Date.now();
  const declarations: Declaration[] = [];
  for (let i = 0; i < count; i++) {
    const state = states[Math.floor(random() * states.length)]!;
    const lgas = [...lgasByState.get(state)!.entries()];
    const n = 1 + Math.floor(random() * 15);
    const chosen = new Map<string, string>();
    for (let j = 0; j < n; j++) {
      const [code, name] = lgas[Math.floor(random() * lgas.length)]!;
      chosen.set(code, name);
    }
    const start = from + random() * (to - from);
    const ended = random() < 0.85;
    declarations.push({
      agrn: String((options.firstAgrn ?? 300) + i),
      title: `Synthetic ${HAZARDS[i % HAZARDS.length]} event ${i} (${state})`,
      state,
      hazard_type: HAZARDS[i % HAZARDS.length]!,
      start_date: isoDay(start),
      end_date: ended ? isoDay(Math.min(to, start + random() * 200 * 86_400_000)) : null,
      url: `https://www.disasterassist.gov.au/Pages/disasters/synthetic-${i}.aspx`,
      lgas: [...chosen.entries()].map(([code, name]) => ({ name, code })),
      sources: ['benchmark'],
    });
  }
  return declarations;
}

/**
 * Writes a data directory through the same stores the server uses: `keyCount` accounts with active keys (one
 * password hash shared, since hashing thousands would only time scrypt), the declarations, and a refresh time.
 * Returns the raw key of the account whose limit is high enough for the load test.
 */
export async function writeDataset(dataDir: string, declarations: Declaration[], keyCount: number): Promise<string> {
  await mkdir(dataDir, { recursive: true });
  const passwordHash = await hashPassword('benchmark password');
  const at = new Date().toISOString();
  const keys = Array.from({ length: keyCount }, () => ({
    accountId: randomUUID(),
    subscriptionId: randomUUID(),
    raw: generateApiKey(),
  }));

  const accounts = await openJsonDocument(accountsDocument, dataDir);
  await accounts.update((file) => {
    keys.forEach((k, i) => {
      file.accounts.push({
        id: k.accountId,
        email: `bench${i}@clinic.example`,
        password_hash: passwordHash,
        created_at: at,
        email_verified_at: null,
      });
      file.organisations.push({ id: `org-${k.accountId}`, name: `Bench clinic ${i}`, created_at: at });
      file.members.push({
        organisation_id: `org-${k.accountId}`,
        account_id: k.accountId,
        role: 'owner',
        created_at: at,
      });
      file.subscriptions.push({
        id: k.subscriptionId,
        organisation_id: `org-${k.accountId}`,
        plan: PLAN_NAME,
        status: 'active',
        expires_at: null,
        ...NOT_BILLED,
        // The first account drives the load; a limit it never reaches keeps every answer a 200.
        rate_limit: i === 0 ? 1_000_000 : 100,
        updated_at: at,
      });
    });
  });
  const keyStore = await openJsonDocument(keysDocument, dataDir);
  await keyStore.update((file) => {
    for (const k of keys) {
      file.keys.push({
        id: randomUUID(),
        account_id: k.accountId,
        subscription_id: k.subscriptionId,
        hash: hashApiKey(k.raw),
        prefix: keyPrefix(k.raw),
        status: 'active',
        created_at: at,
        revoked_at: null,
        last_used_at: null,
      });
    }
  });
  const declarationStore = await openJsonDocument(declarationsDocument, dataDir);
  await declarationStore.update((file) => {
    file.declarations = declarations;
    file.last_updated = at;
  });
  await Promise.all([accounts.close(), keyStore.close(), declarationStore.close()]);
  return keys[0]!.raw;
}
