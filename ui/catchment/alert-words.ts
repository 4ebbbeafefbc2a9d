import type { Alert, AlertKind } from '../../shared/api/alerts';

const KIND_WORDS: Record<AlertKind, string> = {
  newly_eligible: 'Now eligible',
  no_longer_eligible: 'No longer eligible',
  declaration_added: 'Declaration added',
  declaration_ended: 'Declaration ended',
};

/**
 * An alert's headline: what changed and, for a postcode the change leaves only partly covered, that the patient's
 * council area decides — never a plain "Now eligible" for it.
 */
export function alertHeadWords(alert: Pick<Alert, 'kind' | 'coverage'>): string {
  if (alert.coverage !== 'some') return KIND_WORDS[alert.kind];
  return alert.kind === 'newly_eligible'
    ? 'Now partly covered: check the council area'
    : `${KIND_WORDS[alert.kind]}: partly covered, check the council area`;
}
