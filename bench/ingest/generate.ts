/** A synthetic DisasterAssist at full scale: ~900 declarations over ~38 list pages, and a ~6,000-row DRFA CSV. */
import { STATE_CODES, type StateCode } from '../../shared/domain/declaration';
import { drfaCsv, type DrfaRow, type SiteDeclaration } from '../../test/fixtures/ingest/site';

const HAZARDS = ['Flood', 'Storm', 'Bushfire', 'Cyclone', 'Rainfall', 'Thunderstorm', 'Hailstorm', 'Storm surge'];

/** A small deterministic PRNG so every run serves the same site. */
function prng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const STATE_DIGIT: Record<StateCode, string> = {
  NSW: '1',
  VIC: '2',
  QLD: '3',
  SA: '4',
  WA: '5',
  TAS: '6',
  NT: '7',
  ACT: '8',
};

export interface GeneratedSite {
  declarations: SiteDeclaration[];
  drfaCsv: string;
  pageSize: number;
}

export function generateSite(count = 900, pageSize = 24, seed = 42): GeneratedSite {
  const random = prng(seed);
  const pick = <T>(list: readonly T[]) => list[Math.floor(random() * list.length)]!;
  // 60 councils per state, named "Xyz 12", coded like ABS (state digit + 4 digits).
  const councils = new Map<StateCode, { name: string; code: string }[]>();
  for (const state of STATE_CODES) {
    councils.set(
      state,
      Array.from({ length: 60 }, (_, i) => ({
        name: `${state} Council ${String(i + 1).padStart(2, '0')}`,
        code: `${STATE_DIGIT[state]}${String(1000 + i * 10).padStart(4, '0')}`,
      })),
    );
  }
  const declarations: SiteDeclaration[] = [];
  const rows: DrfaRow[] = [];
  for (let i = 0; i < count; i++) {
    const agrn = String(1300 - i);
    const state = pick(STATE_CODES);
    const year = 2026 - Math.floor((i / count) * 20);
    const month = 1 + Math.floor(random() * 12);
    const start = `${year}-${String(month).padStart(2, '0')}-${String(1 + Math.floor(random() * 28)).padStart(2, '0')}`;
    const ended = i > 40 || random() < 0.5;
    const end = ended ? `${Math.min(2026, year + 1)}-${String(month).padStart(2, '0')}-15` : null;
    const lgaCount = 1 + Math.floor(random() * 15);
    const pool = [...councils.get(state)!].sort(() => random() - 0.5).slice(0, lgaCount);
    const types = [pick(HAZARDS), ...(random() < 0.4 ? [pick(HAZARDS)] : [])].filter((v, k, a) => a.indexOf(v) === k);
    const title = `${state} ${types.join(' and ')} event ${agrn} (synthetic)`;
    declarations.push({
      agrn,
      title,
      state,
      types: random() < 0.05 ? [] : types,
      hero: types[0],
      start: start < end! || !end ? start : end,
      end,
      path: `/Pages/disasters/${state.toLowerCase()}/event-${agrn}-synthetic.aspx`,
      lgas: pool.map((c) => c.name),
    });
    // The CSV knows 90 % of the AGRNs, with ~7 LGA rows each and now and then a suburb row.
    if (random() < 0.9) {
      for (const c of pool) {
        rows.push({
          name: c.name,
          type: 'LGA',
          code: c.code,
          state,
          event: `AGRN ${agrn} - ${state} - ${title}`,
          agrn,
          hazard: types.join(', '),
          start,
        });
      }
      if (random() < 0.1) {
        rows.push({
          name: 'Some Suburb',
          type: 'SAL',
          code: `${STATE_DIGIT[state]}9999`,
          state,
          event: title,
          agrn,
          hazard: types[0]!,
          start,
        });
      }
    }
  }
  return { declarations, drfaCsv: drfaCsv(rows), pageSize };
}
