import { describe, expect, it } from 'vitest';
import { cleanText, parseAgrn, parseDayMonthYear, parseMonthYear, parseState } from '../../../server/ingest/text';

describe('text of the sources', () => {
  it('drops zero-width spaces and folds &nbsp;, tabs and newlines into single spaces', () => {
    expect(cleanText('\u200B\u200B Lockyer\u00A0Valley\u200B \r\n\t')).toBe('Lockyer Valley');
    expect(cleanText('Gold\u200BCoast')).toBe('GoldCoast');
    expect(cleanText('\uFEFF  ')).toBe('');
  });

  it('reads d/mm/yyyy as a calendar date and refuses anything else', () => {
    expect(parseDayMonthYear('1/03/2025')).toBe('2025-03-01');
    expect(parseDayMonthYear(' 16/03/2025\u200B ')).toBe('2025-03-16');
    expect(parseDayMonthYear('29/02/2024')).toBe('2024-02-29');
    expect(parseDayMonthYear('29/02/2025')).toBeNull();
    expect(parseDayMonthYear('2025-03-01')).toBeNull();
    expect(parseDayMonthYear('March 2025')).toBeNull();
    expect(parseDayMonthYear('')).toBeNull();
  });

  it('reads the list page month and year, "- -" being ongoing', () => {
    expect(parseMonthYear('Jul 2025')).toBe('2025-07');
    expect(parseMonthYear('Sept 2024')).toBe('2024-09');
    expect(parseMonthYear('- -')).toBeNull();
    expect(parseMonthYear('Foo 2024')).toBeNull();
  });

  it('reads AGRNs written with a thousands comma', () => {
    expect(parseAgrn('1,195')).toBe('1195');
    expect(parseAgrn(' 1216 ')).toBe('1216');
    expect(parseAgrn('0417')).toBe('417');
    expect(parseAgrn('n/a')).toBeNull();
    expect(parseAgrn('')).toBeNull();
  });

  it('knows states by full name and by code', () => {
    expect(parseState('New South Wales')).toBe('NSW');
    expect(parseState(' Queensland\u00A0')).toBe('QLD');
    expect(parseState('QLD')).toBe('QLD');
    expect(parseState('Tas')).toBe('TAS');
    expect(parseState('New Zealand')).toBeNull();
  });
});
