import type { ClientCheckData, ClientDisaster, ClientLocation, ClientMetadata } from './check-answer';
import { displayDate, displayInstant } from '../common/display-dates';
import { h } from '../common/dom';
import type { CheckOutcome, Problem } from './outcome';
import { safeHttpUrl } from '../common/url';
import { badgeView, type BadgeView } from './badge-view';

export interface ResultViewOptions {
  /** Copies the proforma; resolves to whether it worked. */
  copy(text: string): Promise<boolean>;
  /** Called by the "Open options" button shown with setup problems; omitted where there is no such action. */
  openOptions?(): void;
  /** Called by "Try again" on transient problems. */
  retry?(): void;
  now?: number;
}

/** Problems the user fixes in the options (offered "Open options"). */
const SETUP_PROBLEMS: ReadonlySet<Problem> = new Set([
  'not_configured',
  'no_key',
  'no_permission',
  'invalid_key',
  'redirected',
]);
/** Problems that may go away by asking again (offered "Try again"). */
const TRANSIENT_PROBLEMS: ReadonlySet<Problem> = new Set([
  'unreachable',
  'rate_limited',
  'data_unavailable',
  'server_error',
]);

const COLOUR_WORDS: Record<ClientDisaster['status_color'], string> = {
  green: 'Active (recent)',
  amber: 'Active (2+ years)',
  red: 'Not active',
};

/**
 * The result of one check as DOM: the same view in the extension's page panel and popup and the console's Check page.
 * Every server string goes in as a text node (see ui/common/dom.ts), so a declaration title with markup in it shows
 * the markup as characters.
 */
export function renderResultView(doc: Document, outcome: CheckOutcome, options: ResultViewOptions): HTMLElement {
  const badge = badgeView(outcome, options.now);
  if (!outcome.ok) {
    const actions = h(doc, 'p', { class: 'dte-actions' });
    if (SETUP_PROBLEMS.has(outcome.problem) && options.openOptions) {
      const open = h(doc, 'button', { type: 'button', class: 'dte-button' }, 'Open options');
      open.addEventListener('click', () => options.openOptions?.());
      actions.appendChild(open);
    }
    if (TRANSIENT_PROBLEMS.has(outcome.problem) && options.retry) {
      const retry = h(doc, 'button', { type: 'button', class: 'dte-button' }, 'Try again');
      retry.addEventListener('click', () => options.retry?.());
      actions.appendChild(retry);
    }
    return h(
      doc,
      'section',
      { class: 'dte-result dte-tone-neutral', 'data-problem': outcome.problem },
      statusLine(doc, badge),
      h(doc, 'p', {}, badge.detail),
      actions.childNodes.length > 0 && actions,
    );
  }
  return renderSuccess(doc, outcome.data, outcome.metadata, badge, options);
}

/** The badge's glyph and words, as the first line of the view. */
function statusLine(doc: Document, badge: BadgeView): HTMLElement {
  return h(
    doc,
    'p',
    { class: 'dte-status' },
    h(doc, 'span', { class: 'dte-icon', 'aria-hidden': 'true' }, badge.icon),
    ' ',
    badge.label,
  );
}

function renderSuccess(
  doc: Document,
  data: ClientCheckData,
  metadata: ClientMetadata,
  badge: BadgeView,
  options: ResultViewOptions,
): HTMLElement {
  const { summary, location } = data;
  const section = h(doc, 'section', { class: `dte-result dte-tone-${badge.tone}`, 'data-color': summary.status_color });

  section.append(statusLine(doc, badge));
  // A partly covered answer says which council areas are covered before anything else: that is the whole answer.
  if (badge.tone === 'partial') section.append(h(doc, 'p', { class: 'dte-coverage' }, badge.detail));
  section.append(
    h(doc, 'h2', { class: 'dte-headline' }, summary.headline_text),
    h(doc, 'p', { class: 'dte-medicare' }, summary.medicare_status_text),
  );

  section.append(renderLocation(doc, location));

  if (summary.clinical_decision_support.length > 0) {
    section.append(
      h(doc, 'h3', {}, 'What to do'),
      h(doc, 'ol', { class: 'dte-steps' }, ...summary.clinical_decision_support.map((step) => h(doc, 'li', {}, step))),
    );
  }

  section.append(h(doc, 'h3', {}, `Declarations (${data.disasters.length})`), drfaExplained(doc));
  if (data.disasters.length === 0) {
    section.append(h(doc, 'p', {}, "No disaster declaration names this postcode's council area."));
  } else {
    section.append(
      h(doc, 'ul', { class: 'dte-declarations' }, ...data.disasters.map((d) => renderDeclaration(doc, d))),
    );
  }

  const proforma = data.clinical_documentation.proforma_text;
  const copyStatus = h(doc, 'span', { class: 'dte-copy-status', role: 'status' });
  const copyButton = h(doc, 'button', { type: 'button', class: 'dte-button dte-copy' }, 'Copy proforma');
  copyButton.addEventListener('click', () => {
    copyStatus.textContent = '';
    void options.copy(proforma).then((ok) => {
      copyStatus.textContent = ok ? 'Copied to clipboard' : 'Copy failed: select the text and copy it by hand';
    });
  });
  section.append(
    h(doc, 'h3', {}, 'Clinical documentation'),
    h(doc, 'pre', { class: 'dte-proforma', tabindex: '0', 'aria-label': 'Proforma text' }, proforma),
    h(doc, 'p', { class: 'dte-actions' }, copyButton, ' ', copyStatus),
  );

  // Source and staleness only when the server says them.
  const source = metadata.data_source ? ` from ${metadata.data_source}` : '';
  section.append(
    h(doc, 'h3', {}, 'Disclaimers'),
    h(doc, 'ul', { class: 'dte-disclaimers' }, ...disclaimersToShow(data).map((text) => h(doc, 'li', {}, text))),
    h(
      doc,
      'p',
      { class: 'dte-meta' },
      `Data last updated ${displayInstant(metadata.last_updated)}${source}.`,
      metadata.stale ? ' Warning: the data is more than 48 hours old.' : '',
    ),
  );
  return section;
}

function renderLocation(doc: Document, location: ClientLocation): HTMLElement {
  // A server without `lgas` names the principal LGA only.
  const lgas = location.lgas ?? [];
  const lgaNames = lgas.length > 0 ? lgas.map((l) => l.lga_name).join(', ') : location.lga_name;
  return h(
    doc,
    'dl',
    { class: 'dte-location' },
    h(doc, 'dt', {}, 'Postcode'),
    h(doc, 'dd', {}, location.postcode),
    h(doc, 'dt', {}, 'Suburbs'),
    h(doc, 'dd', {}, suburbWords(location.suburb, location.state)),
    h(doc, 'dt', {}, lgas.length > 1 ? 'Council areas (LGAs)' : 'Council area (LGA)'),
    h(doc, 'dd', {}, lgaNames),
  );
}

function renderDeclaration(doc: Document, d: ClientDisaster): HTMLElement {
  const dates = d.end_date ? `${d.display_date} to ${displayDate(d.end_date)}` : `from ${d.display_date}, no end date`;
  const url = safeHttpUrl(d.url);
  return h(
    doc,
    'li',
    { class: `dte-declaration dte-tone-${d.status_color}` },
    h(doc, 'span', { class: 'dte-dot', 'aria-hidden': 'true' }),
    h(doc, 'strong', { class: 'dte-declaration-title' }, d.title),
    h(
      doc,
      'span',
      { class: 'dte-declaration-meta' },
      `Disaster reference (AGRN) ${d.agrn} · ${d.hazard_type ?? 'Hazard not stated'} · ${dates} · ${COLOUR_WORDS[d.status_color]}`,
    ),
    // A server of the first contract does not say the instrument: the declaration is shown without it.
    d.instrument_note && h(doc, 'span', { class: 'dte-declaration-instrument' }, d.instrument_note),
    url &&
      h(
        doc,
        'a',
        { class: 'dte-link', href: url, target: '_blank', rel: 'noopener noreferrer' },
        `Details of disaster ${d.agrn} on DisasterAssist (opens in a new tab)`,
      ),
  );
}

/**
 * The location's suburbs. The server cuts a long list alphabetically (a trailing "…"), which may leave out the
 * patient's own locality: then the line says so instead of showing a list that looks whole.
 */
function suburbWords(suburb: string, state: string): string {
  if (suburb.endsWith('…')) return `Several suburbs, ${state} — confirm the patient's suburb`;
  return `${suburb}, ${state}`;
}

/**
 * The disclaimers, less any the Medicare text above already says word for word (the server puts the DRFA caveat in
 * both): a caveat read twice is a caveat skimmed.
 */
function disclaimersToShow(data: ClientCheckData): string[] {
  const said = data.summary.medicare_status_text;
  return data.disclaimers.filter((text) => !said.includes(text.trim()));
}

/** What DRFA is, once per answer, behind a disclosure (a native <details>: opened by keyboard as by pointer). */
function drfaExplained(doc: Document): HTMLElement {
  return h(
    doc,
    'details',
    { class: 'dte-drfa' },
    h(doc, 'summary', {}, 'What is DRFA?'),
    h(
      doc,
      'p',
      {},
      'DRFA is the Disaster Recovery Funding Arrangements: Commonwealth–State disaster funding. DisasterAssist ' +
        'lists its activations. An activation usually, but not always, follows a State or Territory natural ' +
        'disaster declaration; the telehealth exemption needs that State or Territory declaration for the ' +
        "patient's council area. NSW issues its declarations with the same disaster reference (AGRN), so there " +
        "the reference names the State's own declaration.",
    ),
  );
}
