import type { AlertsData } from '../../shared/api/alerts';
import type { CatchmentData } from '../../shared/api/catchment';
import type { DataMetadata } from '../../shared/api/check';
import type {
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

export function catchmentWords({ summary, postcodes }: CatchmentData, metadata: DataMetadata): string {
  if (postcodes.length === 0) return 'The catchment holds no postcodes: set them in the console.';
  const counts = `${postcodes.length} postcodes: ${summary.green} green, ${summary.amber} amber, ${summary.red} red, ${summary.unknown} unknown; ${summary.partly_covered} only partly covered.`;
  return [counts, dataLine(metadata)].join('\n');
}

export function alertsWords({ alerts }: AlertsData): string {
  if (alerts.length === 0) return 'No alerts.';
  return alerts.map((a) => `#${a.id} ${a.created_at}: ${a.text}`).join('\n');
}
