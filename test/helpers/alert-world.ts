import type { RelatedDeclaration } from '../../shared/domain/declaration';
import type { PostcodeArea } from '../../shared/domain/postcode-area';

const area = (postcode: string, lga: string): PostcodeArea => ({
  postcode,
  suburbs: [],
  state: 'NSW',
  lgas: [{ lga_name: lga, lga_code: lga, share: 1 }],
  lga_source: 'abs_correspondence',
});

/**
 * What AlertsService reads, made by hand: postcodes 2000 (Sydney) and 2480 (Lismore), and `state.covering` saying
 * which AGRNs cover which LGA; `state.lastUpdated` is the declarations' last refresh. Titles: `title(agrn)`.
 */
export function alertWorld(title: (agrn: string) => string = (agrn) => `Flood ${agrn}`) {
  const areas = new Map([
    ['2000', area('2000', 'Sydney')],
    ['2480', area('2480', 'Lismore')],
  ]);
  const state = { lastUpdated: '2026-11-20T03:00:00.000Z' as string | null, covering: new Map<string, string[]>() };
  const related = (lgas: readonly { lga_code: string }[]): RelatedDeclaration[] =>
    lgas.flatMap((l) =>
      (state.covering.get(l.lga_code) ?? []).map((agrn) => ({
        declaration: {
          agrn,
          title: title(agrn),
          state: 'NSW' as const,
          hazard_type: 'Flood',
          start_date: '2026-11-01',
          end_date: null,
          url: null,
          lgas: [],
          sources: [],
        },
        lgas: [{ lga_name: l.lga_code, lga_code: l.lga_code }],
      })),
    );
  const sources = {
    postcodes: { get: (p: string) => areas.get(p) },
    declarations: {
      related,
      get lastUpdated() {
        return state.lastUpdated;
      },
    },
    titleOf: title,
  };
  return { state, sources };
}
