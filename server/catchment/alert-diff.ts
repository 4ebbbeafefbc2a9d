import type { AlertKind } from '../../shared/api/alerts';
import { compareAgrn } from '../../shared/eligibility/status';
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

/** The sentence for the front desk. */
export function alertText(kind: AlertKind, postcode: string, lgaName: string, agrn: string, title: string): string {
  const place = lgaName ? `Postcode ${postcode} (${lgaName})` : `Postcode ${postcode}`;
  const declaration = title ? `AGRN ${agrn}, ${title}` : `AGRN ${agrn}`;
  switch (kind) {
    case 'newly_eligible':
      return (
        `${place} is now covered by a disaster declaration (${declaration}): telehealth with new patients from ` +
        'there may be bulk-billed under the disaster exemption.'
      );
    case 'no_longer_eligible':
      return (
        `${place} is no longer covered by an active disaster declaration (${declaration} has ended): telehealth ` +
        'with new patients from there no longer qualifies for the disaster exemption.'
      );
    case 'declaration_added':
      return `${place} is now also covered by another disaster declaration (${declaration}); it remains eligible for the disaster exemption.`;
    case 'declaration_ended':
      return `${place} is no longer covered by one of its disaster declarations (${declaration} has ended), but it remains eligible through another one.`;
  }
}
