import type { AlertKind } from '../../shared/api/alerts';
import type { Coverage } from '../../shared/api/check';
import { compareAgrn } from '../../shared/eligibility/status';
import { isAre, joinNames } from '../../shared/eligibility/texts';
import type { PostcodeState } from './catchment-records';

/** One change of a postcode between two processed refreshes: what an alert says, before its texts. */
export interface PostcodeChange {
  kind: AlertKind;
  agrn: string;
}

const sorted = (agrns: Iterable<string>) => [...agrns].sort(compareAgrn);

/**
 * What changed for one postcode between its baseline and its state now, in the order the alerts are recorded:
 *
 * - not eligible → eligible: one `newly_eligible`, for the lowest AGRN that now covers it, then `declaration_added`
 *   for each further one;
 * - eligible → not eligible: one `no_longer_eligible`, naming the last (highest) AGRN that ended;
 * - eligible before and after: `declaration_ended` per AGRN gone, then `declaration_added` per AGRN new;
 * - not eligible before and after: nothing.
 */
export function diffPostcodeState(before: PostcodeState, after: PostcodeState): PostcodeChange[] {
  if (!before.is_eligible && !after.is_eligible) return [];
  const was = new Set(before.active_agrns);
  const now = new Set(after.active_agrns);
  const added = sorted(after.active_agrns.filter((a) => !was.has(a)));
  const ended = sorted(before.active_agrns.filter((a) => !now.has(a)));
  const changes: PostcodeChange[] = [];
  if (!before.is_eligible) {
    const [first, ...more] = added;
    // Eligible needs an active declaration, so `first` exists; guarded all the same.
    if (first !== undefined) changes.push({ kind: 'newly_eligible', agrn: first });
    for (const agrn of more) changes.push({ kind: 'declaration_added', agrn });
    return changes;
  }
  if (!after.is_eligible) {
    // Ended by something else than its declarations (the postcode's LGA changed): the last one it had is named.
    const gone = ended.length > 0 ? ended : sorted(before.active_agrns);
    const last = gone.at(-1);
    if (last !== undefined) changes.push({ kind: 'no_longer_eligible', agrn: last });
    return changes;
  }
  for (const agrn of ended) changes.push({ kind: 'declaration_ended', agrn });
  for (const agrn of added) changes.push({ kind: 'declaration_added', agrn });
  return changes;
}

/** Whether two states are the same (then no alert and no baseline write). */
export function sameState(a: PostcodeState, b: PostcodeState): boolean {
  if (a.is_eligible !== b.is_eligible || a.active_agrns.length !== b.active_agrns.length) return false;
  return a.active_agrns.every((agrn, i) => agrn === b.active_agrns[i]);
}

/** The postcode an alert is about, as the data judges it after the change. */
export interface AlertPlace {
  postcode: string;
  /** The principal LGA ("" when unknown). */
  lgaName: string;
  coverage: Coverage;
  /** The names of the postcode's LGAs an active declaration covers, and of those none covers. */
  covered: readonly string[];
  uncovered: readonly string[];
}

/** What the exemption is from (MBS note AN.1.1): a rule about who may be seen by telehealth, not about billing. */
const FACE_TO_FACE = '(a face-to-face service in the last 12 months)';
const RULE = `the established clinical relationship rule ${FACE_TO_FACE}`;

/** Which council areas a partly covered postcode's declarations cover, and that the patient's decides. */
function partlyCovered({ covered, uncovered }: AlertPlace): string {
  const which =
    covered.length > 0 && uncovered.length > 0
      ? `${joinNames(covered)} ${isAre(covered)} covered, ${joinNames(uncovered)} ${isAre(uncovered)} not`
      : 'not all of them are covered';
  return (
    `Check the patient's council area (LGA): ${which}. GP telehealth is exempt from ${RULE} only for patients ` +
    'living in a covered council area.'
  );
}

/**
 * The sentences for the front desk: the postcode (with its council area when the declarations cover all of it or
 * none), what changed, and what it means for telehealth; a partly covered postcode says which council areas are.
 */
export function alertText(kind: AlertKind, place: AlertPlace, agrn: string, title: string): string {
  const partly = place.coverage === 'some';
  const where =
    place.lgaName && !partly
      ? `Postcode ${place.postcode}, in the ${place.lgaName} council area (LGA),`
      : `Postcode ${place.postcode}`;
  const declaration = `${title ? `${title}, ` : ''}disaster reference (AGRN) ${agrn}`;
  switch (kind) {
    case 'newly_eligible':
      return partly
        ? `${where} is now partly covered by a disaster declaration: ${declaration}. ${partlyCovered(place)}`
        : `${where} is now covered by a disaster declaration: ${declaration}. GP telehealth for patients living ` +
            `there is exempt from ${RULE}.`;
    case 'no_longer_eligible':
      return (
        `${where} is no longer covered by an active disaster declaration: ${declaration}, has ended. GP telehealth ` +
        `for patients living there again needs an established clinical relationship ${FACE_TO_FACE}, unless ` +
        'another exemption applies.'
      );
    case 'declaration_added':
      return partly
        ? `${where} is now also covered by another disaster declaration: ${declaration}. It is still only partly ` +
            `covered. ${partlyCovered(place)}`
        : `${where} is now also covered by another disaster declaration: ${declaration}. The exemption from ` +
            `${RULE} still applies.`;
    case 'declaration_ended':
      return partly
        ? `${where} is no longer covered by one of its disaster declarations: ${declaration}, has ended. Another ` +
            `one still covers part of it. ${partlyCovered(place)}`
        : `${where} is no longer covered by one of its disaster declarations: ${declaration}, has ended. Another ` +
            `one still covers it, so the exemption from ${RULE} still applies.`;
  }
}
