/*
 * The legal instrument behind a declaration's list of council areas, decided per State and Territory (SOURCES.md §6,
 * §7). The MBS exemption needs a State or Territory natural disaster declaration; DisasterAssist lists DRFA
 * activations. NSW issues its declarations with the activation's AGRN, so there the reference names the State's own
 * declaration; elsewhere no public list of declared council areas was found and the list is the activation, which
 * usually but not always follows a declaration. A State register found later changes that State's entry here alone.
 */
import type { Declaration, StateCode } from '../domain/declaration';
import type { Instrument } from '../api/check';

interface StateRule {
  /** Whose natural disaster declaration the exemption needs, as a GP would name it. */
  government: string;
  /** The instrument behind this State's declaration with this AGRN (a State register would look the AGRN up). */
  instrumentOf(agrn: string): Instrument;
}

const declaredByTheState = (): Instrument => 'state_declaration';
const activationOnly = (): Instrument => 'drfa_activation';

const STATE_RULES: Record<StateCode, StateRule> = {
  // "issued by the NSW Government and incorporate an Australian Government reference number (AGRN)"
  NSW: { government: 'NSW Government', instrumentOf: declaredByTheState },
  // QLD's "disaster situation" declarations cover disaster districts, not council areas: a different instrument.
  QLD: { government: 'Queensland Government', instrumentOf: activationOnly },
  // Victoria's rare "State of Disaster" is announced by media release, with no list of council areas.
  VIC: { government: 'Victorian Government', instrumentOf: activationOnly },
  SA: { government: 'South Australian Government', instrumentOf: activationOnly },
  WA: { government: 'Western Australian Government', instrumentOf: activationOnly },
  TAS: { government: 'Tasmanian Government', instrumentOf: activationOnly },
  NT: { government: 'Northern Territory Government', instrumentOf: activationOnly },
  ACT: { government: 'ACT Government', instrumentOf: activationOnly },
};

/** A declaration whose source named no State: nothing says a State declared it. */
const NO_STATE: StateRule = { government: 'State or Territory government', instrumentOf: activationOnly };

function ruleOf(state: StateCode | null): StateRule {
  return state === null ? NO_STATE : STATE_RULES[state];
}

export const DRFA_ACTIVATION = 'DRFA activation';
export const DRFA_ACTIVATION_EXPLAINED = `${DRFA_ACTIVATION} (Disaster Recovery Funding Arrangements)`;

export interface DeclarationInstrument {
  instrument: Instrument;
  /** The instrument in words, with what to confirm and with whom. */
  instrument_note: string;
}

/** The instrument of one declaration, as each disaster of an answer carries it. */
export function declarationInstrument(declaration: Pick<Declaration, 'state' | 'agrn'>): DeclarationInstrument {
  const { government, instrumentOf } = ruleOf(declaration.state);
  const instrument = instrumentOf(declaration.agrn);
  return {
    instrument,
    instrument_note:
      instrument === 'state_declaration'
        ? `Natural disaster declaration by the ${government}, issued with this disaster reference (AGRN).`
        : `${DRFA_ACTIVATION_EXPLAINED}, not the ${government}'s own declaration: confirm with the ${government} ` +
          "that it declared the patient's council area (LGA) a natural disaster area.",
  };
}

/** The State or Territory government whose declaration the exemption needs, for a patient in `state`. */
export function declaringGovernment(state: StateCode | null): string {
  return ruleOf(state).government;
}
