import { parseHTML } from 'linkedom';
import type { DataMetadata } from '../../../shared/api/check';
import type { Declaration } from '../../../shared/domain/declaration';
import type { PostcodeArea } from '../../../shared/domain/postcode-area';
import { evaluateEligibility } from '../../../shared/eligibility/evaluate';
import type { CheckSuccess } from '../../../ui/result/outcome';

export const DAY = '2026-03-10';
export const LAST_UPDATED = '2026-03-09T20:00:00.000Z';

/** A fresh DOM for one test (linkedom: WXT's own DOM dependency; jsdom and happy-dom are not installed). */
export function dom(body: string): { document: Document; window: Window & typeof globalThis } {
  const { document, window } = parseHTML(`<!doctype html><html><head></head><body>${body}</body></html>`);
  return { document: document as unknown as Document, window: window as unknown as Window & typeof globalThis };
}

export function declaration(
  overrides: Partial<Declaration> & Pick<Declaration, 'agrn' | 'title' | 'start_date'>,
): Declaration {
  return {
    state: 'QLD',
    hazard_type: 'Flood',
    end_date: null,
    url: `https://www.disasterassist.gov.au/find-a-disaster/australian-disasters/${overrides.agrn}`,
    lgas: [],
    sources: [],
    ...overrides,
  };
}

const BRISBANE = { lga_name: 'Brisbane', lga_code: '31000' };
const MORETON = { lga_name: 'Moreton Bay', lga_code: '35010' };
const LISMORE = { lga_name: 'Lismore', lga_code: '14850' };

export const METADATA: DataMetadata = {
  last_updated: LAST_UPDATED,
  data_source: 'disasterassist.gov.au',
  stale: false,
  checked_date: DAY,
};

function success(
  area: Omit<PostcodeArea, 'lga_source'>,
  related: { declaration: Declaration; lgas: (typeof BRISBANE)[] }[],
): CheckSuccess {
  return {
    ok: true,
    postcode: area.postcode,
    data: evaluateEligibility({
      area: { ...area, lga_source: 'abs_correspondence' },
      related,
      day: DAY,
      lastUpdated: LAST_UPDATED,
    }),
    metadata: METADATA,
  };
}

/** 4000: one recent declaration → green, eligible. The title is given so tests can put markup in it. */
export function brisbaneResult(
  title = 'Tropical Cyclone Test (synthetic)',
  url: string | null = undefined as never,
): CheckSuccess {
  const decl = declaration({ agrn: '1195', title, start_date: '2026-01-01' });
  if (url !== undefined) decl.url = url;
  return success(
    { postcode: '4000', suburbs: ['Brisbane City', 'Spring Hill'], state: 'QLD', lgas: [{ ...BRISBANE, share: 1 }] },
    [{ declaration: decl, lgas: [BRISBANE] }],
  );
}

/** 4055: two LGAs, Moreton Bay the principal one. */
const AREA_4055: Omit<PostcodeArea, 'lga_source'> = {
  postcode: '4055',
  suburbs: ['Bunya', 'Ferny Grove'],
  state: 'QLD',
  lgas: [
    { ...MORETON, share: 0.6 },
    { ...BRISBANE, share: 0.4 },
  ],
};

const LONG_RUNNING_FLOOD = { agrn: '1001', title: 'Long-running Flood (synthetic)', start_date: '2023-02-10' };

/** 4055: Moreton Bay covered by a 3-year-old declaration (amber), Brisbane not covered → partial. */
export function partialAmberResult(): CheckSuccess {
  return success(AREA_4055, [{ declaration: declaration({ ...LONG_RUNNING_FLOOD, url: null }), lgas: [MORETON] }]);
}

/**
 * 4055 as a clinic met it: Brisbane covered by a recent declaration (green), Moreton Bay, the principal LGA, not
 * covered → eligible only in Brisbane (coverage `some`).
 */
export function partialGreenResult(): CheckSuccess {
  const cyclone = declaration({ agrn: '1195', title: 'Tropical Cyclone Test (synthetic)', start_date: '2026-01-01' });
  return success(AREA_4055, [{ declaration: cyclone, lgas: [BRISBANE] }]);
}

/** 4055 with both LGAs covered by old declarations → amber, fully eligible. */
export function amberResult(): CheckSuccess {
  return success(AREA_4055, [{ declaration: declaration(LONG_RUNNING_FLOOD), lgas: [MORETON, BRISBANE] }]);
}

/** 2480: only an ended declaration → red, not eligible. */
export function lismoreResult(): CheckSuccess {
  return success(
    { postcode: '2480', suburbs: ['Lismore', 'Goonellabah'], state: 'NSW', lgas: [{ ...LISMORE, share: 1 }] },
    [
      {
        declaration: declaration({
          agrn: '900',
          title: 'Ended Storm (synthetic)',
          state: 'NSW',
          start_date: '2024-05-01',
          end_date: '2024-06-30',
        }),
        lgas: [LISMORE],
      },
    ],
  );
}
