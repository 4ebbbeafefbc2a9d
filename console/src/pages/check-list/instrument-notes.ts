import type { DisasterView, Instrument } from '../../../../shared/api/check';
import { DRFA_ACTIVATION } from '../../../../shared/eligibility/instrument';
import type { RowOutcome } from './list-model';

/** A row's disaster names its instrument in two words; what to confirm is said once, in a numbered note. */
export const INSTRUMENT_SHORT: Record<Instrument, string> = {
  state_declaration: 'State declaration',
  drfa_activation: DRFA_ACTIVATION,
};

/**
 * The instrument notes of the disasters in force on the rows' days, each once, in the order the rows first need them:
 * a list of 5,000 Brisbane rows says "confirm with the Queensland Government…" once, not 5,000 times. A row points at
 * its note by number (index + 1).
 */
export function instrumentNotes(outcomes: readonly RowOutcome[]): string[] {
  const notes = new Set<string>();
  for (const { answer } of outcomes) {
    for (const d of answer?.disasters ?? []) if (d.is_active && d.instrument_note) notes.add(d.instrument_note);
  }
  return [...notes];
}

/**
 * How a row names the instrument behind a disaster in force, pointing at its note in `notes` (instrumentNotes):
 * "DRFA activation (note 1)"; its two words alone without a note; '' from a server that does not say.
 */
export function instrumentReference(d: DisasterView, notes: readonly string[]): string {
  if (!d.instrument) return '';
  const note = d.instrument_note ? notes.indexOf(d.instrument_note) : -1;
  return note < 0 ? INSTRUMENT_SHORT[d.instrument] : `${INSTRUMENT_SHORT[d.instrument]} (note ${note + 1})`;
}
