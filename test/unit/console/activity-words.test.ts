import { describe, expect, it } from 'vitest';
import type { ActivityEvent } from '../../../shared/api/activity';
import { activityWords } from '../../../console/src/pages/activity/ActivityPage';

const event = (fields: Partial<ActivityEvent>): ActivityEvent => ({
  at: '2026-11-02T00:00:00.000Z',
  event: 'login',
  source: 'web',
  actor: 'manager@bondi.example',
  member_email: null,
  role: null,
  key_prefix: null,
  reason: null,
  subscription: null,
  ...fields,
});

describe("the Activity page's words", () => {
  it('says an organisation was renamed with both names, not by its code (issue #36)', () => {
    const renamed = event({
      event: 'organisation_renamed',
      previous_name: 'Bondi',
      organisation_name: 'Bondi Medical',
    });
    expect(activityWords(renamed)).toBe('Renamed the organisation from “Bondi” to “Bondi Medical”');
  });
});
