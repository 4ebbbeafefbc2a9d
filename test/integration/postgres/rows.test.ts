import { describe, expect, it } from 'vitest';
import { diffRows, timestampIn } from '../../../server/storage/postgres/rows';

const rec = (id: string, v = 0) => ({ id, v });
const byId = (r: { id: string }) => r.id;

describe('diffRows', () => {
  it('finds the inserted, updated and deleted records by id', () => {
    const before = [rec('a'), rec('b'), rec('c')];
    const after = [rec('a'), rec('c', 1), rec('d')];
    expect(diffRows(before, after, byId)).toEqual({
      inserted: [rec('d')],
      updated: [rec('c', 1)],
      deleted: [rec('b')],
      appendOnly: true,
    });
  });

  it('says when the order changed or a record was put anywhere but the end', () => {
    const before = [rec('a'), rec('b')];
    expect(diffRows(before, [rec('b'), rec('a')], byId).appendOnly).toBe(false);
    expect(diffRows(before, [rec('x'), rec('a'), rec('b')], byId).appendOnly).toBe(false);
    expect(diffRows(before, [rec('a'), rec('x'), rec('b')], byId).appendOnly).toBe(false);
    expect(diffRows(before, [rec('b'), rec('x')], byId).appendOnly).toBe(true);
    expect(diffRows(before, before, byId)).toEqual({ inserted: [], updated: [], deleted: [], appendOnly: true });
  });

  it('refuses two records with one id', () => {
    expect(() => diffRows([], [rec('a'), rec('a', 1)], byId)).toThrow(/two records have the id "a"/);
  });
});

describe('timestampIn', () => {
  it('takes only the ISO form that a timestamptz gives back exactly', () => {
    expect(timestampIn('2026-03-01T00:00:00.000Z', 't')).toBe('2026-03-01T00:00:00.000Z');
    for (const bad of ['2026-03-01T00:00:00Z', '2026-03-01T10:00:00.000+10:00', '2026-03-01', 'soon', '']) {
      expect(() => timestampIn(bad, 'created_at')).toThrow(/created_at must be an ISO time/);
    }
  });
});
