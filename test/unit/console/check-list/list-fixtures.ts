import type { DisasterView } from '../../../../shared/api/check';
import type { Declaration } from '../../../../shared/domain/declaration';
import type { PostcodeArea } from '../../../../shared/domain/postcode-area';
import type { LgaRef } from '../../../../shared/domain/lga';
import { evaluateEligibility } from '../../../../shared/eligibility/evaluate';
import type { ListRun, RowOutcome } from '../../../../console/src/pages/check-list/list-model';

/**
 * A finished run over a practice's list as the page hands it to its downloads: answers made by the server's own
 * evaluation (so they have the real answer's shape), and a row of every state.
 */
const LAST_UPDATED = '2026-11-28T20:00:00.000Z';
const LISMORE: LgaRef = { lga_name: 'Lismore', lga_code: '14850' };
const KYOGLE: LgaRef = { lga_name: 'Kyogle', lga_code: '14550' };
const BRISBANE: LgaRef = { lga_name: 'Brisbane', lga_code: '31000' };

function declaration(agrn: string, title: string, start_date: string, end_date: string | null, state: 'NSW' | 'QLD') {
  const d: Declaration = {
    agrn,
    title,
    start_date,
    end_date,
    state,
    hazard_type: 'Flood',
    url: null,
    lgas: [],
    sources: [],
  };
  return d;
}

const NSW_FLOOD = declaration('1234', 'NSW Floods (February 2025)', '2025-02-22', null, 'NSW');
const OLD_FLOOD = declaration('0999', 'Northern Rivers Floods (2017)', '2017-03-28', '2017-04-30', 'NSW');

function answer(
  postcode: string,
  state: 'NSW' | 'QLD',
  lgas: LgaRef[],
  related: { declaration: Declaration; lgas: LgaRef[] }[],
  day: string,
  instruments: Record<string, Pick<DisasterView, 'instrument' | 'instrument_note'>> = {},
) {
  const area: PostcodeArea = {
    postcode,
    suburbs: ['Somewhere'],
    state,
    lgas: lgas.map((l) => ({ ...l, share: 1 / lgas.length })),
    lga_source: 'abs_correspondence',
  };
  const data = evaluateEligibility({ area, related, day, lastUpdated: LAST_UPDATED });
  data.disasters = data.disasters.map((d) => ({ ...d, ...instruments[d.agrn] }));
  return data;
}

export const STATE_NOTE =
  'Declared by the NSW Government: its natural disaster declaration carries this disaster reference (AGRN).';

/** How the page read a row that was not as written. */
export const NOTE = 'Date 11/3/25 read as 11/03/2025';

export const HEADERS = ['Patient name', 'Postcode', 'Suburb', 'Service date', 'Notes'];
export const ROWS: string[][] = [
  ['Zoë Nguyễn', '2480', 'Lismore', '10/03/2025', 'Says "hi", then, leaves'],
  ['=HYPERLINK("http://evil.example","click")', '2480', '', '', '=1+1\nsecond line'],
  ['+61 2 9999 9999', '4000', 'Brisbane City', '11/03/2025'],
  ['Bob Smith', '12AB', '', '', 'a bad postcode'],
  ['-Al', '0999', '', '', '@SUM(A1)'],
  ['Cy', '2000', '', '', '\tTabbed'],
];

const TODAY = '2026-11-29';

export const OUTCOMES: RowOutcome[] = [
  {
    state: 'all',
    question: { postcode: '2480', suburb: 'Lismore', date: '2025-03-10' },
    judgedOn: '2025-03-10',
    answer: answer(
      '2480',
      'NSW',
      [LISMORE],
      [
        { declaration: NSW_FLOOD, lgas: [LISMORE] },
        { declaration: OLD_FLOOD, lgas: [LISMORE] },
      ],
      '2025-03-10',
      {
        '1234': { instrument: 'state_declaration', instrument_note: STATE_NOTE },
        '0999': { instrument: 'state_declaration', instrument_note: STATE_NOTE },
      },
    ),
  },
  {
    state: 'some',
    question: { postcode: '2480' },
    judgedOn: TODAY,
    answer: answer('2480', 'NSW', [LISMORE, KYOGLE], [{ declaration: NSW_FLOOD, lgas: [LISMORE] }], TODAY, {
      '1234': { instrument: 'state_declaration', instrument_note: STATE_NOTE },
    }),
  },
  {
    state: 'none',
    question: { postcode: '4000', suburb: 'Brisbane City', date: '2025-03-11' },
    note: NOTE,
    judgedOn: '2025-03-11',
    answer: answer('4000', 'QLD', [BRISBANE], [], '2025-03-11'),
  },
  { state: 'bad_row', reason: 'The postcode “12AB” is not an Australian postcode (4 digits).' },
  {
    state: 'not_found',
    question: { postcode: '0999' },
    judgedOn: TODAY,
    reason: 'There is no postcode 0999 in the postcode data.',
  },
  {
    state: 'not_checked',
    question: { postcode: '2000' },
    reason: 'Not checked: the day’s allowance of list rows is used up.',
  },
];

export function listRun(overrides: Partial<ListRun> = {}): ListRun {
  return {
    table: { headers: HEADERS, rows: ROWS, lines: ROWS.map((_, i) => i + 1) },
    mapping: { postcode: 1, suburb: 2, date: 3 },
    outcomes: OUTCOMES,
    organisation: 'Northern Rivers Family Practice',
    ranBy: 'manager@nrfp.example',
    ranAt: '2026-11-29T02:30:00.000Z',
    period: { from: '2025-03-10', to: TODAY },
    metadata: {
      last_updated: LAST_UPDATED,
      data_source: 'disasterassist.gov.au',
      stale: false,
      checked_date: TODAY,
      rows_per_day: 20000,
      rows_left_today: 19994,
    },
    ...overrides,
  };
}

/** A run of `count` rows, each the first row of listRun's (a NSW row covered by the State's own declaration). */
export function sameRowsRun(count: number): ListRun {
  const first = OUTCOMES[0]!;
  return listRun({
    table: {
      headers: ['Postcode'],
      rows: Array.from({ length: count }, () => ['2480']),
      lines: Array.from({ length: count }, (_, i) => i + 1),
    },
    mapping: { postcode: 0, suburb: null, date: null },
    outcomes: Array.from({ length: count }, () => first),
  });
}
