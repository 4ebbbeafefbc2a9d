import type { AlertsData } from '../../shared/api/alerts';
import {
  coveredLgaNames,
  type CatchmentColor,
  type CatchmentPostcode,
  type CatchmentSummary,
} from '../../shared/api/catchment';
import type { DataMetadata } from '../../shared/api/check';
import type {
  CatchmentStatusFilter,
  CatchmentStatusResult,
  CheckPostcodeResult,
  DeclarationSummary,
  FindPostcodesResult,
  ListDeclarationsResult,
} from '../../shared/api/mcp';

/*
 * The short text beside each tool's structured result: what a model can quote to a GP or practice manager as it is,
 * in their words (council area (LGA), disaster reference (AGRN)), the data's date always said.
 */

function dataLine({ last_updated, checked_date, stale }: DataMetadata): string {
  const age = stale ? ' (over 48 hours old: the latest refresh failed)' : '';
  return `Data: disasterassist.gov.au, refreshed ${last_updated}${age}; judged for ${checked_date}.`;
}

const COVERAGE_WORDS = {
  all: 'an active declaration covers all of it',
  some: "active declarations cover only some of it: the patient's council area decides",
  none: 'no active declaration covers it',
} as const;

export function checkWords({ data, metadata }: CheckPostcodeResult): string {
  const { summary, location, disasters } = data;
  const areas = location.lgas.map((l) => l.lga_name).join(', ') || 'unknown';
  const active = disasters.filter((d) => d.is_active);
  const references = active.length
    ? active.map((d) => `AGRN ${d.agrn} ${d.title}, from ${d.display_date}`).join('; ')
    : 'none active';
  return [
    summary.headline_text,
    `Postcode ${location.postcode} (${location.state}), council area (LGA): ${areas}; ${COVERAGE_WORDS[summary.coverage]}.`,
    `Disaster references: ${references}.`,
    `What to do: ${summary.clinical_decision_support.join(' ')}`,
    dataLine(metadata),
    data.disclaimers[0] ?? '',
  ]
    .filter(Boolean)
    .join('\n');
}

function declarationLine(d: DeclarationSummary): string {
  const until = d.end_date ? `to ${d.end_date}` : 'not ended';
  const areas = d.lgas.map((l) => l.name).join(', ');
  return `AGRN ${d.agrn}: ${d.title} (${d.state ?? 'no State named'}, ${d.hazard_type ?? 'hazard not named'}), from ${d.start_date} ${until}, ${d.is_active ? 'active' : 'not active'}; council areas (LGAs): ${areas || 'none named'}.`;
}

export function declarationWords(d: DeclarationSummary, metadata: DataMetadata): string {
  return [declarationLine(d), d.instrument_note, d.url ? `Source: ${d.url}` : '', dataLine(metadata)]
    .filter(Boolean)
    .join('\n');
}

export function declarationListWords({ declarations, next_cursor, metadata }: ListDeclarationsResult): string {
  const lines = declarations.length ? declarations.map(declarationLine) : ['No declaration matches.'];
  if (next_cursor) lines.push('More follow: call again with next_cursor as cursor.');
  return [...lines, dataLine(metadata)].join('\n');
}

export function postcodesWords(suburb: string, { postcodes }: FindPostcodesResult): string {
  if (postcodes.length === 0) return `No postcode is known for the suburb ${suburb}.`;
  return postcodes
    .map(
      (p) => `${p.suburb} ${p.state} ${p.postcode}: council area (LGA) ${p.lgas.map((l) => l.lga_name).join(' or ')}`,
    )
    .join('\n');
}

/** What each status of get_catchment_status is called in a sentence (the page's heading). */
const STATUS_WORDS: Record<CatchmentStatusFilter, string> = {
  all: 'Postcodes',
  eligible: 'Eligible postcodes',
  partly_covered: 'Partly covered postcodes',
  not_eligible: 'Not eligible postcodes',
  unknown: 'Postcodes of unknown council area',
};

function catchmentCounts({ green, amber, red, unknown, partly_covered }: CatchmentSummary): string {
  const total = green + amber + red + unknown;
  return (
    `The catchment has ${total} postcodes: ${green + amber} eligible (${green} green, ${amber} amber: every active declaration covering them began 2 or more years ago), ` +
    `${partly_covered} of them only partly covered (the patient's council area decides); ${red} not eligible (red); ` +
    `${unknown} unknown (the council area cannot be told from the data).`
  );
}

/** An eligible postcode in a line: its council areas (LGAs), and which are covered when not all are. */
function eligibleLine(row: CatchmentPostcode): string {
  const areas = row.lgas.map((l) => l.lga_name).join(', ');
  const references = row.active_agrns.map((agrn) => `AGRN ${agrn}`).join(', ');
  const amber = row.status_color === 'amber' ? ' (amber)' : '';
  if (row.coverage !== 'some') return `${row.postcode} (${areas}): covered${amber}, ${references}`;
  const { covered, uncovered } = coveredLgaNames(row);
  return `${row.postcode} (${areas}): partly covered${amber}, only ${covered.join(', ')} (${references}), not ${uncovered.join(', ')}`;
}

/**
 * The counts over the whole catchment, then this page: its eligible postcodes a line each (council areas, covered or
 * which are), the others as lists of postcodes, and whether more pages follow. `first`: the page's place in the list.
 */
export function catchmentWords(result: CatchmentStatusResult, first: number): string {
  const { data, status, matching, next_cursor, metadata } = result;
  const { summary, postcodes, updated_at } = data;
  if (summary.green + summary.amber + summary.red + summary.unknown === 0) {
    return 'The catchment holds no postcodes: set them in the console.';
  }
  const lines = [catchmentCounts(summary)];
  if (postcodes.length === 0) {
    lines.push(`${STATUS_WORDS[status]}: none${matching ? ' after the cursor' : ''}.`);
  } else {
    const last = first + postcodes.length - 1;
    lines.push(`${STATUS_WORDS[status]} ${first}–${last} of ${matching}, ascending:`);
    const eligible = postcodes.filter((p) => p.is_eligible);
    if (eligible.length) {
      lines.push(
        'Eligible (postcode, its council areas (LGAs), the disaster references (AGRN)):',
        ...eligible.map(eligibleLine),
      );
    }
    const listed = (words: string, color: CatchmentColor) => {
      const list = postcodes.filter((p) => !p.is_eligible && p.status_color === color).map((p) => p.postcode);
      if (list.length) lines.push(`${words}: ${list.join(', ')}.`);
    };
    listed('Not eligible (no active declaration)', 'red');
    listed('Unknown (the council area cannot be told)', 'unknown');
  }
  lines.push(
    next_cursor
      ? `More follow: call again with next_cursor as cursor and status "${status}".`
      : 'This is the last page.',
  );
  if (updated_at) lines.push(`The list was last saved ${updated_at}.`);
  return [...lines, dataLine(metadata)].join('\n');
}

export function alertsWords({ alerts }: AlertsData): string {
  if (alerts.length === 0) return 'No alerts.';
  return alerts.map((a) => `#${a.id} ${a.created_at}: ${a.text}`).join('\n');
}
