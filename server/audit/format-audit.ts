import { paidUntil } from '../../shared/domain/paid-until';
import { alignedTable } from '../text-table';
import type { AuditEvent } from './audit-log';

function details(e: AuditEvent): string {
  const parts: string[] = [];
  if (e.member_email) parts.push(`member ${e.member_email}${e.role ? ` (${e.role})` : ''}`);
  else if (e.role) parts.push(e.role);
  if (e.key_prefix) parts.push(`key ${e.key_prefix}…`);
  if (e.reason) parts.push(e.reason);
  if (e.subscription) {
    const until = paidUntil(e.subscription.expires_at);
    parts.push(`${e.subscription.status}, ${until}, ${e.subscription.rate_limit}/min`);
  }
  if (e.stripe_event_id) parts.push(`Stripe ${e.stripe_event_id}`);
  if (e.webhook_host) parts.push(`webhook host ${e.webhook_host}`);
  if (e.postcode_count !== undefined) parts.push(`${e.postcode_count} postcodes`);
  if (e.sso_provider) parts.push(`sso ${e.sso_provider}`);
  if (e.organisation_name !== undefined) parts.push(`renamed "${e.previous_name ?? ''}" to "${e.organisation_name}"`);
  // Only a sign-in names an account that is not there; the operator's and Stripe's events name none by design.
  if (e.account_id === null && e.source === 'web') parts.push('no such account');
  return parts.join('; ');
}

/** The audit events as an aligned table for `npm run admin -- audit`, oldest first. */
export function formatAuditEvents(events: readonly AuditEvent[], whose: string): string {
  if (events.length === 0) return `No audit events for ${whose}`;
  const header = ['TIME (UTC)', 'EVENT', 'BY', 'IP', 'DETAILS'];
  const rows = events.map((e) => [e.at, e.event, e.source, e.ip ?? '-', details(e) || '-']);
  return alignedTable(header, rows);
}
