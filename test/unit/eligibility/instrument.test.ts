import { describe, expect, it } from 'vitest';
import { Instrument } from '../../../shared/api/check';
import { STATE_CODES, type StateCode } from '../../../shared/domain/declaration';
import { declarationInstrument, declaringGovernment } from '../../../shared/eligibility/instrument';

const AGRN = '1170';

/** What a GP is told to confirm, and with whom, for a DRFA activation. */
function activationNote(government: string): string {
  return (
    `DRFA activation (Disaster Recovery Funding Arrangements), not the ${government}'s own declaration: ` +
    `confirm with the ${government} that it declared the patient's council area (LGA) a natural disaster area.`
  );
}

describe('declarationInstrument: the instrument behind each State and Territory’s declarations', () => {
  it('NSW: the State’s own declaration, issued with the AGRN (SOURCES.md §6)', () => {
    expect(declarationInstrument({ state: 'NSW', agrn: AGRN })).toEqual({
      instrument: 'state_declaration',
      instrument_note:
        'Natural disaster declaration by the NSW Government, issued with this disaster reference (AGRN).',
    });
  });

  const activations: [StateCode, string][] = [
    ['VIC', 'Victorian Government'],
    ['QLD', 'Queensland Government'],
    ['SA', 'South Australian Government'],
    ['WA', 'Western Australian Government'],
    ['TAS', 'Tasmanian Government'],
    ['NT', 'Northern Territory Government'],
    ['ACT', 'ACT Government'],
  ];
  it.each(activations)('%s: a DRFA activation, to confirm with the %s', (state, government) => {
    expect(declarationInstrument({ state, agrn: AGRN })).toEqual({
      instrument: 'drfa_activation',
      instrument_note: activationNote(government),
    });
    expect(declaringGovernment(state)).toBe(government);
  });

  it('no State named: a DRFA activation, to confirm with the State or Territory government', () => {
    expect(declarationInstrument({ state: null, agrn: AGRN })).toEqual({
      instrument: 'drfa_activation',
      instrument_note: activationNote('State or Territory government'),
    });
  });

  it('every State and Territory has its rule, each a value of the contract’s Instrument', () => {
    expect(STATE_CODES).toHaveLength(1 + activations.length);
    for (const state of [...STATE_CODES, null]) {
      const { instrument, instrument_note } = declarationInstrument({ state, agrn: AGRN });
      expect(Instrument.options).toContain(instrument);
      // Words for the page a GP reads: the acronyms spelt out, no code or field name.
      expect(instrument_note).toMatch(/council area \(LGA\)|disaster reference \(AGRN\)/);
      expect(instrument_note).not.toMatch(/_|\bnull\b|undefined/);
    }
  });
});
