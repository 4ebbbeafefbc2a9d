import { describe, expect, it } from 'vitest';
import type { CheckData, DisasterView } from '../../../../shared/api/check';
import type { RowOutcome } from '../../../../console/src/pages/check-list/list-model';
import { instrumentNotes } from '../../../../console/src/pages/check-list/instrument-notes';
import { brisbaneResult } from '../../extension/fixtures';

function row(disasters: Partial<DisasterView>[]): RowOutcome {
  const data = brisbaneResult('Flood').data as CheckData;
  const template = data.disasters[0]!;
  data.disasters = disasters.map((d) => ({ ...template, ...d }));
  return { state: 'all', question: { postcode: '4000' }, judgedOn: '2026-03-10', answer: data };
}

describe('instrumentNotes', () => {
  it('each note of a disaster in force once, in the order the rows first need them', () => {
    const qld = { is_active: true, instrument: 'drfa_activation', instrument_note: 'QLD note' } as const;
    const nsw = { is_active: true, instrument: 'state_declaration', instrument_note: 'NSW note' } as const;
    const outcomes = [
      ...Array.from({ length: 5000 }, () => row([qld])),
      row([nsw, qld]),
      row([{ ...nsw, is_active: false, instrument_note: 'ended' }]),
      { state: 'bad_row', reason: 'No postcode in this row' } as RowOutcome,
      row([{ is_active: true, instrument: undefined, instrument_note: undefined }]),
    ];
    expect(instrumentNotes(outcomes)).toEqual(['QLD note', 'NSW note']);
  });

  it('none for a list with no disaster in force', () => {
    expect(instrumentNotes([row([]), { state: 'not_checked', reason: 'x' } as RowOutcome])).toEqual([]);
  });
});
