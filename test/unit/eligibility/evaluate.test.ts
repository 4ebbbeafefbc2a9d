import { describe, it, expect } from 'vitest';
import { CheckData } from '../../../shared/api/check';
import type { Declaration, RelatedDeclaration } from '../../../shared/domain/declaration';
import type { PostcodeArea } from '../../../shared/domain/postcode-area';
import { evaluateEligibility, type EvaluateInput } from '../../../shared/eligibility/evaluate';

const DAY = '2025-06-15';
const LAST_UPDATED = '2025-06-14T15:30:00Z'; // 01:30 on 15/06/2025 in Sydney

const BRISBANE = { lga_name: 'Brisbane', lga_code: '31000' };
const LISMORE = { lga_name: 'Lismore', lga_code: '14850' };
const KYOGLE = { lga_name: 'Kyogle', lga_code: '14550' };

function declaration(
  agrn: string,
  title: string,
  start_date: string,
  end_date: string | null = null,
  state: Declaration['state'] = 'QLD',
): Declaration {
  return {
    agrn,
    title,
    state,
    hazard_type: 'Flood',
    start_date,
    end_date,
    url: `https://www.disasterassist.gov.au/find-a-disaster/australian-disasters/${agrn}`,
    lgas: [],
    sources: [],
  };
}

const brisbaneArea: PostcodeArea = {
  postcode: '4000',
  suburbs: ['Brisbane City'],
  state: 'QLD',
  lgas: [{ ...BRISBANE, share: 1 }],
  lga_source: 'abs_correspondence',
};

const lismoreArea: PostcodeArea = {
  postcode: '2480',
  suburbs: ['Lismore', 'Lismore Heights', 'Goonellabah'],
  state: 'NSW',
  lgas: [
    { ...LISMORE, share: 0.8 },
    { ...KYOGLE, share: 0.2 },
  ],
  lga_source: 'abs_correspondence',
};

function run(area: PostcodeArea, related: RelatedDeclaration[], day = DAY, lastUpdated = LAST_UPDATED) {
  const input: EvaluateInput = { area, related, day, lastUpdated };
  const out = evaluateEligibility(input);
  // Every answer the route sends must satisfy the published schema.
  expect(() => CheckData.parse(out)).not.toThrow();
  return out;
}

const inBrisbane = (d: Declaration): RelatedDeclaration => ({ declaration: d, lgas: [BRISBANE] });

const recent = declaration('1200', 'Queensland Severe Storms and Flooding, May 2025', '2025-05-01');
const old = declaration('1100', 'South East Queensland Rainfall and Flooding, February 2022', '2022-02-22');
const ended = declaration('1150', 'Tropical Cyclone Alfred, March 2025', '2025-03-05', '2025-06-14');
const future = declaration('1250', 'Bushfires, July 2025', '2025-07-01');

describe('evaluateEligibility — single LGA', () => {
  it('one recent active declaration: eligible, green, LGA named', () => {
    const out = run(brisbaneArea, [inBrisbane(recent)]);
    expect(out.summary.is_eligible).toBe(true);
    expect(out.summary.status_color).toBe('green');
    expect(out.summary.headline_text).toMatch(/^Eligible\b/);
    expect(out.summary.headline_text).toContain('1 active disaster declaration');
    expect(out.summary.headline_text).not.toContain('declarations');
    expect(out.summary.headline_text).toContain('Brisbane');
    expect(out.summary.headline_text).not.toMatch(/2 or more years/);
  });

  it('fills location from the area, principal LGA first', () => {
    const out = run(brisbaneArea, [inBrisbane(recent)]);
    expect(out.location).toEqual({
      postcode: '4000',
      suburb: 'Brisbane City',
      state: 'QLD',
      lga_name: 'Brisbane',
      lga_code: '31000',
      lgas: [BRISBANE],
      lga_source: 'abs_correspondence',
    });
  });

  it('counts several active declarations in the plural', () => {
    const a = declaration('1201', 'A', '2025-01-01');
    const b = declaration('1202', 'B', '2025-02-01');
    const out = run(brisbaneArea, [inBrisbane(recent), inBrisbane(a), inBrisbane(b), inBrisbane(ended)]);
    expect(out.summary.headline_text).toContain('3 active disaster declarations');
  });

  it('medicare text for eligible names the exemption and the DRFA caveat', () => {
    const text = run(brisbaneArea, [inBrisbane(recent)]).summary.medicare_status_text;
    expect(text).toMatch(/may be exempt from the established clinical relationship requirement/);
    expect(text).toContain('MBS note AN.1.1');
    expect(text).toMatch(/State or Territory government/);
    expect(text).toMatch(
      /DRFA activations \(Disaster Recovery Funding Arrangements: .*\), which usually but not always follow/,
    );
  });

  it('decision support for eligible: confirm the address first, record the exemption last', () => {
    const steps = run(brisbaneArea, [inBrisbane(recent)]).summary.clinical_decision_support;
    expect(steps[0]).toMatch(/^Confirm the patient's residential address is in Brisbane council area \(LGA\)/);
    expect(steps.at(-1)).toMatch(
      /^Record in the notes that the disaster exemption .* was relied on and the clinical reason/,
    );
    expect(steps.join(' ')).not.toMatch(/long-running/);
  });

  it('all active declarations 2+ years old: amber, headline and steps say so', () => {
    const out = run(brisbaneArea, [inBrisbane(old), inBrisbane(ended)]);
    expect(out.summary.is_eligible).toBe(true);
    expect(out.summary.status_color).toBe('amber');
    expect(out.summary.headline_text).toMatch(/^Eligible\b/);
    expect(out.summary.headline_text).toContain('began 2 or more years ago');
    expect(
      out.summary.clinical_decision_support.some((s) => /^Verify the long-running declaration still applies/.test(s)),
    ).toBe(true);
  });

  it('a recent declaration alongside an old one keeps the summary green', () => {
    const out = run(brisbaneArea, [inBrisbane(old), inBrisbane(recent)]);
    expect(out.summary.status_color).toBe('green');
    expect(out.summary.headline_text).toContain('2 active disaster declarations');
    expect(out.summary.headline_text).not.toMatch(/2 or more years/);
  });

  it('only ended or future declarations: not eligible, red', () => {
    const out = run(brisbaneArea, [inBrisbane(ended), inBrisbane(future)]);
    expect(out.summary.is_eligible).toBe(false);
    expect(out.summary.status_color).toBe('red');
    expect(out.summary.headline_text).toMatch(/^Not eligible\b/);
    expect(out.summary.headline_text).toContain('no active disaster declaration');
    expect(out.summary.headline_text).toContain('Brisbane');
    expect(out.summary.medicare_status_text).toMatch(
      /established clinical relationship requirement .*face-to-face service in the last 12 months.* applies unless another exemption does/,
    );
    expect(out.summary.medicare_status_text).toMatch(/DRFA activations/);
    expect(out.summary.clinical_decision_support.join(' ')).toMatch(
      /established clinical relationship .* or another exemption before billing telehealth/,
    );
  });

  it('no related declarations at all: not eligible, red, empty list', () => {
    const out = run(brisbaneArea, []);
    expect(out.summary.is_eligible).toBe(false);
    expect(out.summary.status_color).toBe('red');
    expect(out.disasters).toEqual([]);
  });

  it('a declaration ending on the day checked still makes the patient eligible', () => {
    const out = run(brisbaneArea, [inBrisbane(ended)], '2025-06-14');
    expect(out.summary.is_eligible).toBe(true);
  });

  it('judges on the given day, not today', () => {
    // On 1 March 2025 the May 2025 declaration had not started and Alfred had not begun.
    const out = run(brisbaneArea, [inBrisbane(recent), inBrisbane(ended)], '2025-03-01');
    expect(out.summary.is_eligible).toBe(false);
  });

  it('refuses a malformed day rather than colouring by text comparison', () => {
    expect(() =>
      evaluateEligibility({ area: brisbaneArea, related: [], day: '15/06/2025', lastUpdated: LAST_UPDATED }),
    ).toThrow(RangeError);
  });
});

describe('evaluateEligibility — disasters list', () => {
  it('lists every related declaration, active first then newest, with its view fields', () => {
    const out = run(brisbaneArea, [inBrisbane(ended), inBrisbane(old), inBrisbane(future), inBrisbane(recent)]);
    expect(out.disasters.map((d) => d.agrn)).toEqual(['1200', '1100', '1250', '1150']);
    const [first, second, third, fourth] = out.disasters;
    expect(first).toMatchObject({
      status_color: 'green',
      is_active: true,
      display_date: '01/05/2025',
      lgas: [BRISBANE],
    });
    expect(second).toMatchObject({ status_color: 'amber', is_active: true, display_date: '22/02/2022' });
    expect(third).toMatchObject({ status_color: 'red', is_active: false, display_date: '01/07/2025' });
    expect(fourth).toMatchObject({
      status_color: 'red',
      is_active: false,
      end_date: '2025-06-14',
      hazard_type: 'Flood',
    });
    expect(fourth!.url).toContain('1150');
  });

  it('names the instrument of each: the State’s own declaration in NSW, a DRFA activation elsewhere', () => {
    const nsw = declaration('1300', 'Northern Rivers Flooding', '2025-05-01', null, 'NSW');
    const [declared, activation] = run(lismoreArea, [
      { declaration: nsw, lgas: [LISMORE] },
      { declaration: old, lgas: [KYOGLE] },
    ]).disasters;
    expect(declared).toMatchObject({
      agrn: '1300',
      instrument: 'state_declaration',
      instrument_note:
        'Natural disaster declaration by the NSW Government, issued with this disaster reference (AGRN).',
    });
    expect(activation).toMatchObject({ agrn: '1100', instrument: 'drfa_activation' });
    expect(activation!.instrument_note).toMatch(
      /^DRFA activation \(Disaster Recovery Funding Arrangements\), not the Queensland Government's own declaration: confirm/,
    );
  });

  it('the instrument changes no part of the summary: eligibility, colour and coverage are the contract’s', () => {
    for (const [start, end] of [
      ['2025-05-01', null],
      ['2022-02-22', null],
      ['2025-03-05', '2025-06-14'],
    ] as const) {
      const asIn = (state: Declaration['state']) =>
        run(lismoreArea, [{ declaration: declaration('1300', 'Floods', start, end, state), lgas: [KYOGLE] }]).summary;
      expect(asIn('NSW')).toEqual(asIn('QLD'));
      expect(asIn('NSW')).toEqual(asIn(null));
    }
  });

  it('breaks a start-date tie by AGRN, highest first', () => {
    const a = declaration('999', 'A', '2025-05-01');
    const b = declaration('1000', 'B', '2025-05-01');
    expect(run(brisbaneArea, [inBrisbane(a), inBrisbane(b)]).disasters.map((d) => d.agrn)).toEqual(['1000', '999']);
  });
});

describe('evaluateEligibility — proforma', () => {
  const endsLater = declaration('1210', 'Queensland Monsoon Trough, January 2025', '2025-01-10', '2025-12-31');
  const out = run(brisbaneArea, [inBrisbane(recent), inBrisbane(endsLater), inBrisbane(ended), inBrisbane(future)]);
  const text = out.clinical_documentation.proforma_text;
  const lines = text.split('\n');

  it('has a title line, then the date checked, postcode and LGA', () => {
    expect(lines[0]).toMatch(/telehealth/i);
    expect(lines).toContain('Date checked: 15/06/2025');
    expect(lines).toContain('Patient postcode: 4000 (Brisbane City, QLD)');
    expect(lines).toContain('Local Government Area: Brisbane (31000)');
  });

  it('lists each active declaration with title, AGRN, instrument (DRFA spelt out once) and dates', () => {
    expect(lines).toContain(
      '- Queensland Severe Storms and Flooding, May 2025 (disaster reference AGRN 1200), DRFA activation (Disaster Recovery Funding Arrangements) from 01/05/2025',
    );
    expect(lines).toContain(
      '- Queensland Monsoon Trough, January 2025 (disaster reference AGRN 1210), DRFA activation from 10/01/2025 to 31/12/2025',
    );
  });

  it('asks once, after the DRFA activations, to record the State declaration as confirmed', () => {
    const confirm = lines.indexOf(
      "Queensland Government natural disaster declaration for the patient's council area (LGA), confirmed: ",
    );
    expect(confirm).toBe(lines.findLastIndex((l) => l.startsWith('- ')) + 1);
    expect(text.match(/confirmed: /g)).toHaveLength(1);
    // The DRFA caveat is the Medicare text's and the disclaimers', not the notes'.
    expect(text).not.toContain('usually but not always');
  });

  it('does not list inactive declarations', () => {
    expect(text).not.toContain('1150');
    expect(text).not.toContain('Alfred');
    expect(text).not.toContain('1250');
    expect(text).not.toContain('Bushfires');
  });

  it('states the exemption relied on and leaves the clinical reason to fill', () => {
    expect(text).toContain(
      'Patient resides in a local government area declared a natural disaster area (MBS note AN.1.1); established clinical relationship requirement not applied.',
    );
    expect(lines.some((l) => l.trimEnd() === 'Clinical reason for telehealth:')).toBe(true);
  });

  it('cites the source with the data date in Sydney', () => {
    expect(lines.at(-1)).toBe('Source: disasterassist.gov.au (data updated 15/06/2025)');
  });

  it('when not eligible, says the exemption is not available and lists no declaration', () => {
    const red = run(brisbaneArea, [inBrisbane(ended)]).clinical_documentation.proforma_text;
    expect(red).not.toContain('Patient resides in a local government area declared');
    expect(red).toMatch(
      /No active disaster declaration covers the patient's council area.*exemption \(MBS note AN\.1\.1\) is not available/,
    );
    expect(red).not.toContain('AGRN');
    expect(red).not.toContain('DRFA');
    expect(red).toContain('Clinical reason for telehealth:');
  });
});

describe('evaluateEligibility — postcode spanning several LGAs (principal named, all listed, suburb narrows)', () => {
  it('location names the principal LGA and lists all', () => {
    const out = run(lismoreArea, []);
    expect(out.location.lga_name).toBe('Lismore');
    expect(out.location.lga_code).toBe('14850');
    expect(out.location.lgas).toEqual([LISMORE, KYOGLE]);
  });

  it('declaration covering only a non-principal LGA: eligible, but the headline shows partial coverage', () => {
    const d = declaration('1300', 'Northern Rivers Flooding', '2025-05-01');
    const out = run(lismoreArea, [{ declaration: d, lgas: [KYOGLE] }]);
    expect(out.summary.is_eligible).toBe(true);
    expect(out.summary.status_color).toBe('green');
    expect(out.summary.coverage).toBe('some');
    const h = out.summary.headline_text;
    expect(h).toMatch(/^Eligible only if the patient lives in Kyogle council area \(LGA\)/);
    expect(h).toContain('1 active disaster declaration');
    expect(h).toContain('not Lismore');
    expect(h).toContain("Confirm the patient's council area");
  });

  it('decision support tells the clinician to confirm the LGA, naming covered and not covered', () => {
    const d = declaration('1300', 'Northern Rivers Flooding', '2025-05-01');
    const steps = run(lismoreArea, [{ declaration: d, lgas: [KYOGLE] }]).summary.clinical_decision_support;
    expect(steps[0]).toMatch(/^Confirm which council area \(LGA\) the patient lives in/);
    expect(steps[0]).toContain('Kyogle is covered by an active declaration');
    expect(steps[0]).toContain('Lismore is not');
    expect(steps.join(' ')).toMatch(/If the patient lives in Lismore, the disaster exemption does not apply/);
  });

  it('coverage counts only active declarations', () => {
    const activeKyogle = declaration('1300', 'Northern Rivers Flooding', '2025-05-01');
    const endedBoth = declaration('1000', 'Old floods', '2022-02-22', '2023-01-01');
    const out = run(lismoreArea, [
      { declaration: activeKyogle, lgas: [KYOGLE] },
      { declaration: endedBoth, lgas: [LISMORE, KYOGLE] },
    ]);
    expect(out.summary.headline_text).toContain('not Lismore');
  });

  it('proforma shows every LGA, what each declaration covers and a line to record the confirmed LGA', () => {
    const d = declaration('1300', 'Northern Rivers Flooding', '2025-05-01', null, 'NSW');
    const text = run(lismoreArea, [{ declaration: d, lgas: [KYOGLE] }]).clinical_documentation.proforma_text;
    expect(text).toContain('Local Government Area: Lismore (14850), Kyogle (14550)');
    expect(text).toContain(
      '- Northern Rivers Flooding (disaster reference AGRN 1300), NSW Government natural disaster declaration from 01/05/2025; covers Kyogle',
    );
    expect(text).toMatch(/Patient's council area \(LGA\), confirmed/);
    // The State's own declaration: nothing more to confirm about it, and no DRFA to explain.
    expect(text).not.toMatch(/DRFA|declaration for the patient's council area/);
  });

  it('declarations covering every LGA: plain eligible headline naming them, no confirm-which step', () => {
    const d = declaration('1300', 'Northern Rivers Flooding', '2025-05-01');
    const out = run(lismoreArea, [{ declaration: d, lgas: [LISMORE, KYOGLE] }]);
    expect(out.summary.coverage).toBe('all');
    expect(out.summary.headline_text).toBe(
      'Eligible: 1 active disaster declaration for Lismore and Kyogle council areas (LGAs).',
    );
    expect(out.summary.clinical_decision_support.join(' ')).not.toMatch(/Confirm which council area/);
  });

  it('partial coverage with only old declarations is amber and still partial', () => {
    const d = declaration('1100', 'Old but open', '2022-02-22');
    const out = run(lismoreArea, [{ declaration: d, lgas: [LISMORE] }]);
    expect(out.summary.status_color).toBe('amber');
    expect(out.summary.headline_text).toMatch(/^Eligible only if the patient lives in Lismore council area \(LGA\)/);
    expect(out.summary.headline_text).toContain('not Kyogle');
    expect(out.summary.headline_text).toContain('2 or more years ago');
  });

  it('none active: not eligible, naming every LGA', () => {
    const out = run(lismoreArea, []);
    expect(out.summary.coverage).toBe('none');
    expect(out.summary.headline_text).toBe(
      'Not eligible: no active disaster declaration for Lismore or Kyogle council area (LGA).',
    );
  });
});

describe('evaluateEligibility — LGA from postcode locality data (not in the ABS correspondence)', () => {
  const localityArea: PostcodeArea = { ...brisbaneArea, postcode: '4001', lga_source: 'postcode_locality_data' };
  const LOCALITY_STEP =
    "The council area (LGA) for postcode 4001 comes from postcode locality data, not the ABS population-weighted correspondence: confirm the patient's council area from their residential address on the council or ABS website.";

  it('says so in location', () => {
    expect(run(localityArea, []).location.lga_source).toBe('postcode_locality_data');
  });

  it('eligible: the first step is to confirm the LGA, and the headline says why', () => {
    const out = run(localityArea, [inBrisbane(recent)]);
    expect(out.summary.is_eligible).toBe(true);
    expect(out.summary.headline_text).toBe(
      "Eligible: 1 active disaster declaration for Brisbane council area (LGA). Confirm the patient's council area: it comes from postcode locality data.",
    );
    const steps = out.summary.clinical_decision_support;
    expect(steps[0]).toBe(LOCALITY_STEP);
    // The rest is the advice an ABS-weighted LGA gets.
    expect(steps.slice(1)).toEqual(
      run({ ...localityArea, lga_source: 'abs_correspondence' }, [inBrisbane(recent)]).summary
        .clinical_decision_support,
    );
  });

  it('not eligible: the same first step and headline sentence', () => {
    const out = run(localityArea, [inBrisbane(ended)]);
    expect(out.summary.headline_text).toBe(
      "Not eligible: no active disaster declaration for Brisbane council area (LGA). Confirm the patient's council area: it comes from postcode locality data.",
    );
    expect(out.summary.clinical_decision_support[0]).toBe(LOCALITY_STEP);
  });

  it('partly covered: the headline asks for the LGA once, the steps start with why', () => {
    const area: PostcodeArea = { ...lismoreArea, postcode: '4001', lga_source: 'postcode_locality_data' };
    const out = run(area, [{ declaration: recent, lgas: [KYOGLE] }]);
    expect(out.summary.headline_text.match(/Confirm the patient's council area/g)).toHaveLength(1);
    expect(out.summary.clinical_decision_support[0]).toBe(LOCALITY_STEP);
  });

  it('the proforma names the source and leaves the confirmed LGA to fill in', () => {
    const lines = run(localityArea, [inBrisbane(recent)]).clinical_documentation.proforma_text.split('\n');
    expect(lines).toContain(
      'Local Government Area: Brisbane (31000) (from postcode locality data, not the ABS correspondence)',
    );
    expect(lines).toContain("Patient's council area (LGA), confirmed from residential address: ");
  });

  it('an ABS-weighted single LGA gets none of it', () => {
    const out = run(brisbaneArea, [inBrisbane(recent)]);
    expect(out.summary.headline_text).toBe('Eligible: 1 active disaster declaration for Brisbane council area (LGA).');
    expect(out.summary.clinical_decision_support.join(' ')).not.toContain('locality data');
    expect(out.clinical_documentation.proforma_text).not.toMatch(
      /locality data|Patient's council area \(LGA\), confirmed/,
    );
  });
});

describe('evaluateEligibility — unknown LGA', () => {
  const unknownArea: PostcodeArea = {
    postcode: '0872',
    suburbs: ['Ghan', 'Kulgera'],
    state: 'NT',
    lgas: [],
    lga_source: 'postcode_locality_data',
  };
  const out = run(unknownArea, []);

  it('reports Unknown with an empty code and no LGAs', () => {
    expect(out.location.lga_name).toBe('Unknown');
    expect(out.location.lga_code).toBe('');
    expect(out.location.lgas).toEqual([]);
    // Nothing came from anywhere: not "postcode_locality_data", whatever the index said.
    expect(out.location.lga_source).toBeNull();
  });

  it('is red and not eligible', () => {
    expect(out.summary.is_eligible).toBe(false);
    expect(out.summary.status_color).toBe('red');
  });

  it('headline says the LGA could not be determined and must be confirmed on the council or ABS site', () => {
    expect(out.summary.headline_text).toMatch(/^Not eligible\b/);
    expect(out.summary.headline_text).toContain('could not be determined');
    expect(out.summary.headline_text).toMatch(
      /Confirm the patient's council area on the council or ABS website before relying/,
    );
  });

  it('decision support starts with confirming the LGA on the council or ABS site', () => {
    expect(out.summary.clinical_decision_support[0]).toMatch(
      /^Confirm the patient's council area \(LGA\) .*council or ABS website before relying on a disaster exemption/,
    );
  });

  it('proforma marks the LGA unknown and the exemption unavailable', () => {
    const text = out.clinical_documentation.proforma_text;
    expect(text).toContain('Local Government Area: Unknown');
    expect(text).toContain('Patient postcode: 0872 (Ghan, Kulgera, NT)');
    expect(text).not.toContain('Patient resides in a local government area declared');
  });

  it('is never eligible even if a declaration is passed in', () => {
    const stray = run(unknownArea, [{ declaration: recent, lgas: [BRISBANE] }]);
    expect(stray.summary.is_eligible).toBe(false);
    expect(stray.summary.status_color).toBe('red');
  });
});

describe('evaluateEligibility — output shape', () => {
  it('cuts a long suburb list in location; the proforma says "several suburbs" rather than a cut that may miss the patient\'s', () => {
    const many: PostcodeArea = {
      ...brisbaneArea,
      suburbs: Array.from({ length: 20 }, (_, i) => `Suburb ${String.fromCharCode(65 + i)} Heights`),
    };
    const out = run(many, []);
    expect(out.location.suburb.endsWith('…')).toBe(true);
    expect(out.location.suburb.length).toBeLessThanOrEqual(80);
    expect(out.clinical_documentation.proforma_text).toContain('Patient postcode: 4000 (several suburbs, QLD)');
  });

  it('a suburb that does not settle the LGA is said in the headline and the steps, not passed over', () => {
    const ferny: PostcodeArea = {
      postcode: '4055',
      suburbs: ['Ferny Grove'],
      state: 'QLD',
      lgas: [
        { lga_name: 'Moreton Bay', lga_code: '35010', share: 0.52 },
        { ...BRISBANE, share: 0.48 },
      ],
      lga_source: 'abs_correspondence',
      undecided_suburb: 'Ferny Grove',
    };
    const partly = run(ferny, [inBrisbane(recent)]);
    expect(partly.summary.coverage).toBe('some');
    expect(partly.summary.headline_text).toContain(
      "Ferny Grove could not be placed in one council area, so this answer is for all of postcode 4055's: Moreton Bay and Brisbane.",
    );
    expect(partly.clinical_documentation.proforma_text).toContain('Patient postcode: 4055 (Ferny Grove, QLD)');
    const none = run(ferny, []);
    expect(none.summary.headline_text).toContain('Ferny Grove could not be placed in one council area');
    expect(none.summary.clinical_decision_support[0]).toBe(
      "Ferny Grove is not tied to one council area in the postcode data: confirm the patient's council area from their street address (Moreton Bay or Brisbane).",
    );
    // A suburb that did settle it (narrowed to one LGA) says nothing of the kind.
    const settled = run({ ...ferny, lgas: [{ ...BRISBANE, share: 1 }], undecided_suburb: undefined }, []);
    expect(settled.summary.headline_text).not.toContain('could not be placed');
  });

  it('always carries the disclaimers', () => {
    const out = run(brisbaneArea, []);
    expect(out.disclaimers.length).toBeGreaterThanOrEqual(4);
    expect(out.disclaimers.join(' ')).toMatch(/not clinical, billing or legal advice/);
  });

  it('does not reorder the caller’s related array', () => {
    const related = [inBrisbane(ended), inBrisbane(recent)];
    run(brisbaneArea, related);
    expect(related.map((r) => r.declaration.agrn)).toEqual(['1150', '1200']);
  });
});
