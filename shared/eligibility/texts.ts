/*
 * The words of a check result. GPs read these under time pressure and paste them into clinical notes, so they are
 * short, plain Australian English, and say what to do rather than what the service is.
 */
import { sydneyToday, toDisplayDate } from '../domain/dates';
import type { StateCode } from '../domain/declaration';
import type { LgaRef, LgaSource } from '../domain/lga';
import type { Instrument, StatusColor } from '../api/check';
import { DRFA_ACTIVATION, DRFA_ACTIVATION_EXPLAINED, declaringGovernment } from './instrument';

/** An active declaration as the texts need it; `lgas` are the postcode's LGAs it covers. */
export interface ActiveDeclarationText {
  agrn: string;
  title: string;
  start_date: string;
  end_date: string | null;
  lgas: LgaRef[];
  instrument: Instrument;
}

/** Everything the wording depends on, worked out by evaluateEligibility so these functions only phrase it. */
export interface TextContext {
  postcode: string;
  /** The place as the notes name it: the suburb asked about, the postcode's suburbs, or "several suburbs". */
  suburb: string;
  /**
   * The suburb asked about when it does not settle which of the postcode's LGAs the patient lives in (the postcode
   * data does not tell its suburbs apart): the answer then stays for every LGA of the postcode, and says so.
   */
  undecidedSuburb?: string;
  state: StateCode;
  /** Every LGA the postcode spans, principal first; empty when the LGA could not be determined. */
  lgas: LgaRef[];
  /** Where `lgas` come from; null when they are empty. */
  lgaSource: LgaSource | null;
  /** Active related declarations in display order. */
  active: ActiveDeclarationText[];
  /** The postcode's LGAs that at least one active declaration covers, in `lgas` order. */
  covered: LgaRef[];
  /** The postcode's LGAs that no active declaration covers, in `lgas` order. */
  uncovered: LgaRef[];
  color: StatusColor;
  /** The day the declarations were judged on, YYYY-MM-DD. */
  day: string;
  /** ISO timestamp of the last successful data refresh. */
  lastUpdated: string;
}

export const DRFA_CAVEAT =
  'DisasterAssist lists DRFA activations (Disaster Recovery Funding Arrangements: joint Australian and State or Territory Government disaster funding), which usually but not always follow a State or Territory natural disaster declaration.';

const RELATIONSHIP_RULE =
  'established clinical relationship requirement (a face-to-face service in the last 12 months)';

const EXEMPTION_RELIED_ON =
  'Patient resides in a local government area declared a natural disaster area (MBS note AN.1.1); established clinical relationship requirement not applied.';

export const LGA_UNKNOWN_NAME = 'Unknown';

// ---------------------------------------------------------------------------------------------------------------
// Small phrasing helpers

/** "A", "A and B", "A, B and C" — Australian style, no serial comma. */
export function joinNames(names: readonly string[], conjunction: 'and' | 'or' = 'and'): string {
  if (names.length <= 1) return names[0] ?? '';
  return `${names.slice(0, -1).join(', ')} ${conjunction} ${names[names.length - 1]}`;
}

export function activeCountText(count: number): string {
  if (count === 0) return 'no active disaster declaration';
  return `${count} active disaster declaration${count === 1 ? '' : 's'}`;
}

function names(lgas: readonly LgaRef[]): string[] {
  return lgas.map((l) => l.lga_name);
}

/**
 * "Brisbane council area (LGA)", "Lismore and Kyogle council areas (LGAs)", "Lismore or Kyogle council area (LGA)":
 * the words a GP uses, with the acronym the official sources use beside them.
 */
function councilArea(lgas: readonly LgaRef[], conjunction: 'and' | 'or' = 'and'): string {
  const plural = conjunction === 'and' && lgas.length > 1;
  return `${joinNames(names(lgas), conjunction)} ${plural ? 'council areas (LGAs)' : 'council area (LGA)'}`;
}

function lgaKnown(ctx: TextContext): boolean {
  return ctx.lgas.length > 0;
}

/**
 * The postcode is not in the ABS correspondence, so its LGA comes from postcode locality data, whose principal LGA
 * differs from the ABS one for over a third of the postcodes both know. The advice then treats the LGA as unconfirmed.
 */
function lgaFromLocalityData(ctx: TextContext): boolean {
  return lgaKnown(ctx) && ctx.lgaSource === 'postcode_locality_data';
}

function isEligible(ctx: TextContext): boolean {
  return lgaKnown(ctx) && ctx.active.length > 0;
}

/** Declarations cover some but not all of a multi-LGA postcode: the one case where the patient's LGA decides. */
function isPartial(ctx: TextContext): boolean {
  return isEligible(ctx) && ctx.covered.length > 0 && ctx.uncovered.length > 0;
}

function amberSentence(activeCount: number): string {
  return activeCount === 1
    ? 'The active declaration began 2 or more years ago.'
    : 'All active declarations began 2 or more years ago.';
}

/**
 * A timestamp as the Sydney calendar day, because that is the day a GP in the notes would call it. An unparsable
 * value is not worth failing a check over, so it degrades to "unknown" rather than throwing.
 */
export function displayDateOfInstant(iso: string): string {
  const instant = new Date(iso);
  if (Number.isNaN(instant.getTime())) return 'unknown';
  return toDisplayDate(sydneyToday(instant));
}

// ---------------------------------------------------------------------------------------------------------------
// Location

/**
 * The suburbs of a postcode, cut at a whole name with a trailing "…" so the field stays one readable line. The "…"
 * counts towards `maxChars`; the first name is always kept even if it alone is longer. (location.suburb, as the
 * contract describes it; the clinical notes say "several suburbs" instead of a cut list: notesPlace.)
 */
export function formatSuburbList(suburbs: string[], maxChars = 80): string {
  const list = [...new Set(suburbs.map((s) => s.trim()).filter((s) => s.length > 0))];
  const full = list.join(', ');
  if (full.length <= maxChars) return full;
  let shown = list[0]!;
  for (const name of list.slice(1)) {
    const next = `${shown}, ${name}`;
    if (next.length + 1 > maxChars) break;
    shown = next;
  }
  return `${shown}…`;
}

/**
 * The place as the clinical notes name it: the suburb asked about (the area then has that one), the postcode's
 * suburbs when they fit, otherwise "several suburbs" — an alphabetical cut would name some localities and leave out
 * the patient's (2480's list stops at "Back Creek, Bentley, …", without Lismore).
 */
export function notesPlace(suburbs: string[], maxChars = 80): string {
  const list = formatSuburbList(suburbs, maxChars);
  return list.endsWith('…') ? 'several suburbs' : list;
}

// ---------------------------------------------------------------------------------------------------------------
// Summary

export function headlineText(ctx: TextContext): string {
  const count = ctx.active.length;
  if (!lgaKnown(ctx)) {
    return `Not eligible: the council area (LGA) for postcode ${ctx.postcode} could not be determined, so ${activeCountText(0)} can be matched. Confirm the patient's council area on the council or ABS website before relying on a disaster exemption.`;
  }
  const amber = ctx.color === 'amber' ? ` ${amberSentence(count)}` : '';
  if (count === 0) {
    return `Not eligible: ${activeCountText(0)} for ${councilArea(ctx.lgas, 'or')}.${undecidedSuburbSentence(ctx)}${uncertainLgaSentence(ctx)}`;
  }
  if (isPartial(ctx)) {
    const covered = names(ctx.covered);
    const verb = count === 1 ? 'covers' : 'cover';
    return (
      `Eligible only if the patient lives in ${councilArea(ctx.covered, 'or')}: ${activeCountText(count)} ${verb} ` +
      `${joinNames(covered)}, not ${joinNames(names(ctx.uncovered), 'or')}.${amber}${undecidedSuburbSentence(ctx)} ` +
      "Confirm the patient's council area from their address."
    );
  }
  return `Eligible: ${activeCountText(count)} for ${councilArea(ctx.lgas)}.${amber}${undecidedSuburbSentence(ctx)}${uncertainLgaSentence(ctx)}`;
}

/** Appended to a headline that does not already ask for the LGA to be confirmed. */
function uncertainLgaSentence(ctx: TextContext): string {
  return lgaFromLocalityData(ctx) ? " Confirm the patient's council area: it comes from postcode locality data." : '';
}

/** A suburb that did not narrow the answer is said, not passed over: the answer is for every LGA of the postcode. */
function undecidedSuburbSentence(ctx: TextContext): string {
  if (!ctx.undecidedSuburb || ctx.lgas.length < 2) return '';
  return ` ${ctx.undecidedSuburb} could not be placed in one council area, so this answer is for all of postcode ${ctx.postcode}'s: ${joinNames(names(ctx.lgas))}.`;
}

export function medicareStatusText(ctx: TextContext): string {
  if (!lgaKnown(ctx)) {
    return `Until the patient's council area is confirmed, the ${RELATIONSHIP_RULE} applies unless another exemption does. ${DRFA_CAVEAT}`;
  }
  if (!isEligible(ctx)) {
    return `The ${RELATIONSHIP_RULE} applies unless another exemption does. ${DRFA_CAVEAT}`;
  }
  const who = isPartial(ctx)
    ? `If the patient lives in ${joinNames(names(ctx.covered), 'or')}, they may be exempt`
    : 'The patient may be exempt';
  return (
    `${who} from the established clinical relationship requirement for GP telehealth (MBS note AN.1.1: patient living ` +
    `in a local government area declared a natural disaster by a State or Territory government). ${DRFA_CAVEAT}`
  );
}

const RECORD_STEP =
  'record in the notes that the disaster exemption (MBS note AN.1.1) was relied on and the clinical reason for telehealth: paste the proforma and complete it.';

const CHECK_OTHER_EXEMPTION =
  'check the patient has an established clinical relationship (a face-to-face service in the last 12 months) or another exemption before billing telehealth.';

function verifyLongRunningStep(activeCount: number): string {
  return activeCount === 1
    ? 'Verify the long-running declaration still applies: it began 2 or more years ago, so check on disasterassist.gov.au or the State or Territory government website that it has not ended.'
    : 'Verify the long-running declarations still apply: all began 2 or more years ago, so check on disasterassist.gov.au or the State or Territory government website that they have not ended.';
}

export function isAre(list: readonly string[]): string {
  return list.length === 1 ? 'is' : 'are';
}

function capitalise(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

function localityDataStep(postcode: string): string {
  return `The council area (LGA) for postcode ${postcode} comes from postcode locality data, not the ABS population-weighted correspondence: confirm the patient's council area from their residential address on the council or ABS website.`;
}

function undecidedSuburbStep(ctx: TextContext): string {
  return `${ctx.undecidedSuburb} is not tied to one council area in the postcode data: confirm the patient's council area from their street address (${joinNames(names(ctx.lgas), 'or')}).`;
}

/** Ordered steps, most decisive first, each one an instruction. */
export function clinicalDecisionSupport(ctx: TextContext): string[] {
  const steps = decisionSteps(ctx);
  // First: every later step names an LGA that may not be the patient's.
  if (lgaFromLocalityData(ctx)) return [localityDataStep(ctx.postcode), ...steps];
  // A partly covered answer's first step already asks which council area; otherwise the suburb's doubt comes first.
  if (ctx.undecidedSuburb && ctx.lgas.length > 1 && !isPartial(ctx)) return [undecidedSuburbStep(ctx), ...steps];
  return steps;
}

function decisionSteps(ctx: TextContext): string[] {
  if (!lgaKnown(ctx)) {
    return [
      `Confirm the patient's council area (LGA) from their residential address on the council or ABS website before relying on a disaster exemption: the council area for postcode ${ctx.postcode} could not be determined.`,
      `Until the council area is confirmed, ${CHECK_OTHER_EXEMPTION}`,
    ];
  }
  const lgaList = councilArea(ctx.lgas, 'or');
  if (!isEligible(ctx)) {
    return [
      `Confirm the patient's residential address is in ${lgaList}; a different address may change the result.`,
      capitalise(CHECK_OTHER_EXEMPTION),
    ];
  }
  const amber = ctx.color === 'amber' ? [verifyLongRunningStep(ctx.active.length)] : [];
  if (isPartial(ctx)) {
    const covered = names(ctx.covered);
    const uncovered = names(ctx.uncovered);
    return [
      `Confirm which council area (LGA) the patient lives in from their residential address: ${joinNames(covered)} ${isAre(covered)} covered by an active declaration; ${joinNames(uncovered)} ${isAre(uncovered)} not.`,
      `If the patient lives in ${joinNames(uncovered, 'or')}, the disaster exemption does not apply: ${CHECK_OTHER_EXEMPTION}`,
      ...amber,
      `If the patient lives in ${joinNames(covered, 'or')}, ${RECORD_STEP}`,
    ];
  }
  return [`Confirm the patient's residential address is in ${lgaList}.`, ...amber, capitalise(RECORD_STEP)];
}

// ---------------------------------------------------------------------------------------------------------------
// Clinical documentation

function lgaLine(ctx: TextContext): string {
  if (!lgaKnown(ctx)) return `Local Government Area: ${LGA_UNKNOWN_NAME} (could not be determined from the postcode)`;
  const shown = ctx.lgas.map((l) => (l.lga_code ? `${l.lga_name} (${l.lga_code})` : l.lga_name));
  const from = lgaFromLocalityData(ctx) ? ' (from postcode locality data, not the ABS correspondence)' : '';
  return `Local Government Area: ${shown.join(', ')}${from}`;
}

function declarationLine(decl: ActiveDeclarationText, instrument: string, multiLga: boolean): string {
  const until = decl.end_date ? ` to ${toDisplayDate(decl.end_date)}` : '';
  // With several LGAs the note must show which one each declaration covers, or the record proves nothing.
  const covers = multiLga && decl.lgas.length > 0 ? `; covers ${joinNames(names(decl.lgas))}` : '';
  return `- ${decl.title} (disaster reference AGRN ${decl.agrn}), ${instrument} from ${toDisplayDate(decl.start_date)}${until}${covers}`;
}

/**
 * Each active declaration's instrument in a few words, DRFA spelt out the first time only. The related declarations
 * are found by council area within the patient's State, so the State of the answer is the declaring one.
 */
function instrumentWords(ctx: TextContext): string[] {
  let explained = false;
  return ctx.active.map((d) => {
    if (d.instrument === 'state_declaration') return `${declaringGovernment(ctx.state)} natural disaster declaration`;
    if (explained) return DRFA_ACTIVATION;
    explained = true;
    return DRFA_ACTIVATION_EXPLAINED;
  });
}

/**
 * A DRFA activation is not itself the State or Territory declaration the exemption needs: the notes get a line to
 * record that declaration as confirmed, as they do the council area when the postcode alone does not settle it.
 */
function stateDeclarationLine(ctx: TextContext): string[] {
  if (!isEligible(ctx) || !ctx.active.some((d) => d.instrument === 'drfa_activation')) return [];
  return [
    `${declaringGovernment(ctx.state)} natural disaster declaration for the patient's council area (LGA), confirmed: `,
  ];
}

function exemptionLine(ctx: TextContext): string {
  if (!lgaKnown(ctx)) {
    return "Exemption relied upon: None. The patient's council area could not be determined; the disaster exemption (MBS note AN.1.1) is not available until it is confirmed.";
  }
  if (!isEligible(ctx)) {
    return "Exemption relied upon: None. No active disaster declaration covers the patient's council area on the date checked; the disaster exemption (MBS note AN.1.1) is not available.";
  }
  return `Exemption relied upon: ${EXEMPTION_RELIED_ON}`;
}

/** Plain text a GP pastes into the notes as is: the facts SOURCES §5 says a claim record needs, one per line. */
export function proformaText(ctx: TextContext): string {
  const multiLga = ctx.lgas.length > 1;
  const place = [ctx.suburb, ctx.state].filter((s) => s.length > 0).join(', ');
  const lines = [
    'Telehealth disaster exemption check',
    `Date checked: ${toDisplayDate(ctx.day)}`,
    `Patient postcode: ${ctx.postcode} (${place})`,
    lgaLine(ctx),
  ];
  // The clinician has to fill this in whenever the postcode alone does not settle the LGA.
  if (!lgaKnown(ctx) || isPartial(ctx) || lgaFromLocalityData(ctx)) {
    lines.push("Patient's council area (LGA), confirmed from residential address: ");
  }
  if (ctx.active.length === 0) {
    lines.push('Active disaster declarations: none');
  } else {
    const instruments = instrumentWords(ctx);
    lines.push(
      'Active disaster declarations:',
      ...ctx.active.map((d, i) => declarationLine(d, instruments[i]!, multiLga)),
      ...stateDeclarationLine(ctx),
    );
  }
  lines.push(
    exemptionLine(ctx),
    'Clinical reason for telehealth: ',
    `Source: disasterassist.gov.au (data updated ${displayDateOfInstant(ctx.lastUpdated)})`,
  );
  return lines.join('\n');
}

export function disclaimers(): string[] {
  return [
    'For information only: this is not clinical, billing or legal advice.',
    "Clinicians must verify current MBS telehealth requirements and the patient's eligibility before claiming.",
    'Disaster declarations may change or end without notice.',
    DRFA_CAVEAT,
  ];
}
