import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AlertsData } from '../../../shared/api/alerts';
import { CatchmentResponse } from '../../../shared/api/catchment';
import { CheckResponse } from '../../../shared/api/check';
import { successEnvelope } from '../../../shared/api/envelope';
import {
  CatchmentStatusResult,
  CheckPostcodeResult,
  FindPostcodesResult,
  GetDeclarationResult,
  ListAlertsResult,
  ListDeclarationsResult,
} from '../../../shared/api/mcp';
import { addDays, sydneyToday } from '../../../shared/domain/dates';
import type { Declaration } from '../../../shared/domain/declaration';
import { buildPostcodeIndex, type LocalityRow } from '../../../server/postcodes/postcode-index';
import { fixtureDeclarations } from '../../fixtures/declarations';
import { LOCALITY_ROWS } from '../../fixtures/localities';
import { bearer, callTool, connectMcp, textOf } from '../../helpers/mcp-client';
import { recordAlertDirectly } from '../../helpers/record-alert';
import { checkPostcode, seedAccount, startTestServer, type TestServer } from '../../helpers/test-server';

const TOOLS = [
  'check_postcode',
  'get_declaration',
  'list_declarations',
  'find_postcodes',
  'get_catchment_status',
  'list_alerts',
];

/** 110 WA declarations over council areas no fixture postcode has, a day apart: three pages of list_declarations. */
function manyDeclarations(today: string): Declaration[] {
  return Array.from({ length: 110 }, (_, i) => ({
    agrn: String(5000 + i),
    title: `Synthetic WA storm ${i}`,
    state: 'WA' as const,
    hazard_type: 'Storm',
    start_date: addDays(today, -400 - i),
    end_date: i % 2 ? addDays(today, -10) : null,
    url: null,
    lgas: [{ name: `Nowhere ${i}`, code: null }],
    sources: ['fixture'],
  }));
}

/**
 * WA postcodes 6000–6109 in the council areas of manyDeclarations (6000+i in "Nowhere i": eligible when i is even,
 * not when odd); 6100–6109 also in an "Outback" area no declaration names (the even ones partly covered). A catchment
 * of 6000–6249 then has 55 eligible (5 partly covered), 55 not eligible and 140 unknown (not in the index).
 */
function catchmentRows(): LocalityRow[] {
  const row = (postcode: number, locality: string, lgaregion: string, lgacode: number): LocalityRow => ({
    postcode: String(postcode),
    locality,
    state: 'WA',
    type: 'Delivery Area',
    lgaregion,
    lgacode: String(lgacode),
  });
  return Array.from({ length: 110 }, (_, i) => [
    row(6000 + i, `SYNTHETIC ${i}`, `Nowhere ${i}`, 50000 + i),
    ...(i >= 100 ? [row(6000 + i, `SYNTHETIC ${i} EAST`, `Outback ${i}`, 55000 + i)] : []),
  ]).flat();
}

const CATCHMENT = Array.from({ length: 250 }, (_, i) => String(6000 + i));
/** The postcodes of CATCHMENT from 6000+`from` to 6000+`to` (inclusive) whose number is `step` apart. */
const postcodesOf = (from: number, to: number, step = 1) =>
  CATCHMENT.filter((p) => Number(p) - 6000 >= from && Number(p) - 6000 <= to && (Number(p) - 6000 - from) % step === 0);

describe('POST /mcp: the tools', () => {
  let server: TestServer;
  let apiKey: string;
  let subscriptionId: string;
  let client: Client;
  let today: string;

  beforeAll(async () => {
    today = sydneyToday(new Date());
    server = await startTestServer({
      declarations: [...fixtureDeclarations(today), ...manyDeclarations(today)],
      postcodes: buildPostcodeIndex([...LOCALITY_ROWS, ...catchmentRows()]),
    });
    const clinic = await seedAccount(server.runtime, { rateLimit: 1000 });
    apiKey = clinic.apiKey!;
    subscriptionId = server.runtime.accounts.subscriptionOf(clinic.accountId)!.id;
    client = await connectMcp(server.url, bearer(apiKey));
  });
  afterAll(async () => {
    await client?.close();
    await server?.close();
  });

  it('lists six read-only tools, each with its title, description and both schemas', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(TOOLS);
    for (const tool of tools) {
      expect(tool.title, tool.name).toBeTruthy();
      expect(tool.description, tool.name).toMatch(/not clinical, legal or billing advice/);
      expect(tool.inputSchema.type, tool.name).toBe('object');
      expect(tool.outputSchema?.type, tool.name).toBe('object');
      expect(tool.annotations, tool.name).toMatchObject({ readOnlyHint: true, openWorldHint: false });
    }
    const check = tools[0]!;
    expect(check.inputSchema.required).toEqual(['postcode']);
    expect(Object.keys(check.inputSchema.properties ?? {})).toEqual(['postcode', 'suburb', 'date']);
    const catchment = tools.find((t) => t.name === 'get_catchment_status')!;
    expect(catchment.inputSchema.required ?? []).toEqual([]);
    expect(catchment.inputSchema.properties?.status).toMatchObject({
      enum: ['all', 'eligible', 'partly_covered', 'not_eligible', 'unknown'],
    });
    expect(catchment.description).toMatch(/call again with it as cursor and the same status/);
  });

  it('check_postcode answers what the REST check answers, with a text to quote', async () => {
    for (const question of [{ postcode: '4000' }, { postcode: '4055', suburb: 'Ferny Grove' }, { postcode: '2480' }]) {
      const result = await callTool(client, 'check_postcode', question);
      expect(result.isError, JSON.stringify(question)).toBeFalsy();
      const rest = CheckResponse.parse(await (await checkPostcode(server, apiKey, question)).json());
      expect(CheckPostcodeResult.parse(result.structuredContent)).toEqual({ data: rest.data, metadata: rest.metadata });
    }
    const result = await callTool(client, 'check_postcode', { postcode: '4000', date: addDays(today, -1) });
    const { data, metadata } = CheckPostcodeResult.parse(result.structuredContent);
    expect(metadata.checked_date).toBe(addDays(today, -1));
    const text = textOf(result);
    expect(text).toContain(data.summary.headline_text);
    expect(text).toContain('council area (LGA): Brisbane');
    expect(text).toContain('AGRN 1195 Tropical Cyclone Test (synthetic)');
    expect(text).toContain(`What to do: ${data.summary.clinical_decision_support[0]}`);
    expect(text).toContain(`refreshed ${metadata.last_updated}`);
    expect(text).toContain('not clinical, billing or legal advice');
  });

  it("check_postcode refuses bad input with the REST API's words, as a tool result", async () => {
    const refusals: [Record<string, unknown>, string][] = [
      [{ postcode: '40O0' }, 'Invalid postcode format'],
      [{ postcode: '４０００' }, 'Invalid postcode format'],
      [{ postcode: '٤٠٠٠' }, 'Invalid postcode format'],
      [{ postcode: 4000 }, 'Invalid postcode format'],
      [{ postcode: null }, 'Invalid postcode format'],
      [{}, 'Invalid postcode format'],
      [{ postcode: '0100' }, 'Invalid postcode format'],
      [{ postcode: '9998' }, 'Postcode not found'],
      [{ postcode: '4000', suburb: 'Lismore' }, 'Suburb is not in this postcode'],
      [{ postcode: '4000', suburb: ['Spring Hill'] }, 'Suburb is not in this postcode'],
      [{ postcode: '4000', date: addDays(today, 1) }, 'Invalid date'],
      [{ postcode: '4000', date: '2025-02-30' }, 'Invalid date'],
      [{ postcode: '4000', date: 20250101 }, 'Invalid date'],
      [{ postcode: 'x'.repeat(10_000) }, 'Invalid postcode format'],
    ];
    for (const [args, words] of refusals) {
      const result = await callTool(client, 'check_postcode', args);
      expect(result.isError, JSON.stringify(args).slice(0, 80)).toBe(true);
      expect(textOf(result), JSON.stringify(args).slice(0, 80)).toContain(words);
      expect(result.structuredContent).toBeUndefined();
    }
  });

  it('get_declaration: by AGRN, or refused in words', async () => {
    const result = await callTool(client, 'get_declaration', { agrn: '1195' });
    const { declaration, metadata } = GetDeclarationResult.parse(result.structuredContent);
    expect(declaration).toMatchObject({
      agrn: '1195',
      title: 'Tropical Cyclone Test (synthetic)',
      state: 'QLD',
      hazard_type: 'Cyclone',
      end_date: null,
      is_active: true,
      url: 'https://www.disasterassist.gov.au/Pages/disasters/queensland/synthetic-cyclone.aspx',
      lgas: [
        { name: 'Brisbane', code: '31000' },
        { name: 'Gold Coast', code: '31430' },
      ],
      instrument: 'drfa_activation',
    });
    expect(metadata.checked_date).toBe(today);
    expect(textOf(result)).toContain('AGRN 1195: Tropical Cyclone Test (synthetic) (QLD, Cyclone)');
    const ended = GetDeclarationResult.parse(
      (await callTool(client, 'get_declaration', { agrn: '900' })).structuredContent,
    );
    expect(ended.declaration).toMatchObject({ is_active: false, instrument: 'state_declaration' });
    for (const agrn of ['424242', 'abc', '', ' 1195x', 1195]) {
      const refused = await callTool(client, 'get_declaration', { agrn });
      expect(refused.isError, String(agrn)).toBe(true);
      expect(textOf(refused)).toContain('No declaration with this AGRN');
    }
  });

  it('list_declarations: newest first, 50 a page with an opaque cursor, filtered by state, day and LGA', async () => {
    const pages: ListDeclarationsResult[] = [];
    let cursor: string | undefined;
    do {
      const result = await callTool(client, 'list_declarations', cursor ? { cursor } : {});
      const page = ListDeclarationsResult.parse(result.structuredContent);
      pages.push(page);
      cursor = page.next_cursor ?? undefined;
    } while (cursor);
    expect(pages.map((p) => p.declarations.length)).toEqual([50, 50, 13]);
    const all = pages.flatMap((p) => p.declarations);
    expect(new Set(all.map((d) => d.agrn)).size).toBe(113);
    const starts = all.map((d) => d.start_date);
    expect(starts).toEqual([...starts].sort().reverse());
    expect(all[0]!.agrn).toBe('1195');

    const wa = ListDeclarationsResult.parse(
      (await callTool(client, 'list_declarations', { state: 'QLD' })).structuredContent,
    );
    expect(wa.declarations.map((d) => d.agrn)).toEqual(['1195', '1001']);
    expect(wa.next_cursor).toBeNull();
    const lismore = await callTool(client, 'list_declarations', { lga: 'Lismore City Council' });
    expect(ListDeclarationsResult.parse(lismore.structuredContent).declarations.map((d) => d.agrn)).toEqual(['900']);
    expect(textOf(lismore)).toContain('AGRN 900: Ended Storm (synthetic)');
    const byCode = await callTool(client, 'list_declarations', { lga: '31430' });
    expect(ListDeclarationsResult.parse(byCode.structuredContent).declarations.map((d) => d.agrn)).toEqual(['1195']);
    const activeLongAgo = await callTool(client, 'list_declarations', { state: 'WA', active_on: addDays(today, -505) });
    // Started 400+i days ago: i >= 105 had started 505 days ago; the odd ones ended 10 days ago, so still active then.
    expect(ListDeclarationsResult.parse(activeLongAgo.structuredContent).declarations.map((d) => d.agrn)).toEqual([
      '5105',
      '5106',
      '5107',
      '5108',
      '5109',
    ]);

    const refusals: [Record<string, unknown>, string][] = [
      [{ cursor: 'not-a-cursor' }, 'Invalid cursor'],
      [{ cursor: Buffer.from('["2025-01-01","x"]').toString('base64url') }, 'Invalid cursor'],
      [{ active_on: '2025-13-01' }, 'Invalid date'],
      [{ state: 'XYZ' }, 'Invalid'],
      [{ lga: '' }, 'Invalid request body'],
    ];
    for (const [args, words] of refusals) {
      const result = await callTool(client, 'list_declarations', args);
      expect(result.isError, JSON.stringify(args)).toBe(true);
      expect(textOf(result), JSON.stringify(args)).toContain(words);
    }
  });

  it("find_postcodes: a suburb's postcodes and council areas", async () => {
    const spring = await callTool(client, 'find_postcodes', { suburb: 'spring  HILL' });
    expect(FindPostcodesResult.parse(spring.structuredContent).postcodes).toEqual([
      { postcode: '4000', suburb: 'Spring Hill', state: 'QLD', lgas: [{ lga_name: 'Brisbane', lga_code: '31000' }] },
    ]);
    expect(textOf(spring)).toBe('Spring Hill QLD 4000: council area (LGA) Brisbane');
    // 4055 spans two council areas; the suburb settles which.
    const ferny = FindPostcodesResult.parse(
      (await callTool(client, 'find_postcodes', { suburb: 'Ferny Grove', state: 'QLD' })).structuredContent,
    );
    expect(ferny.postcodes).toEqual([
      { postcode: '4055', suburb: 'Ferny Grove', state: 'QLD', lgas: [{ lga_name: 'Brisbane', lga_code: '31000' }] },
    ]);
    const elsewhere = await callTool(client, 'find_postcodes', { suburb: 'Spring Hill', state: 'NSW' });
    expect(FindPostcodesResult.parse(elsewhere.structuredContent).postcodes).toEqual([]);
    expect(textOf(elsewhere)).toBe('No postcode is known for the suburb Spring Hill.');
    for (const suburb of ['', '   ', 'a\u0000b', 42]) {
      const refused = await callTool(client, 'find_postcodes', { suburb });
      expect(refused.isError, JSON.stringify(suburb)).toBe(true);
      expect(textOf(refused)).toContain('Invalid request body');
    }
  });

  it("get_catchment_status and list_alerts: the key's organisation's, as the REST API answers them", async () => {
    const empty = await callTool(client, 'get_catchment_status');
    expect(CatchmentStatusResult.parse(empty.structuredContent).data.postcodes).toEqual([]);
    expect(textOf(empty)).toBe('The catchment holds no postcodes: set them in the console.');

    await server.runtime.catchments.replace(subscriptionId, ['4000', '2480']);
    const status = await callTool(client, 'get_catchment_status', {});
    const rest = CatchmentResponse.parse(
      await (await fetch(`${server.url}/api/v1/catchment`, { headers: { 'x-api-key': apiKey } })).json(),
    );
    expect(CatchmentStatusResult.parse(status.structuredContent)).toEqual({
      data: rest.data,
      status: 'all',
      matching: 2,
      next_cursor: null,
      metadata: rest.metadata,
    });
    const text = textOf(status);
    expect(text).toContain('The catchment has 2 postcodes: 1 eligible (1 green, 0 amber');
    expect(text).toContain('0 of them only partly covered');
    expect(text).toContain('1 not eligible (red); 0 unknown');
    expect(text).toContain('\n4000 (Brisbane): covered, AGRN 1195\n');
    expect(text).toContain('Not eligible (no active declaration): 2480.');
    expect(text).toContain('This is the last page.');

    expect(ListAlertsResult.parse((await callTool(client, 'list_alerts')).structuredContent).alerts).toEqual([]);
    const alert = {
      subscription_id: subscriptionId,
      created_at: new Date().toISOString(),
      kind: 'newly_eligible' as const,
      postcode: '4000',
      lga_name: 'Brisbane',
      agrn: '1195',
      title: 'Tropical Cyclone Test (synthetic)',
      text: 'Postcode 4000 (Brisbane) is now under an active disaster declaration.',
    };
    const first = await recordAlertDirectly(server.runtime, alert);
    const second = await recordAlertDirectly(server.runtime, { ...alert, postcode: '2480', lga_name: 'Lismore' });
    const restAlerts = successEnvelope(AlertsData).parse(
      await (await fetch(`${server.url}/api/v1/alerts`, { headers: { 'x-api-key': apiKey } })).json(),
    );
    const alerts = await callTool(client, 'list_alerts', {});
    expect(ListAlertsResult.parse(alerts.structuredContent)).toEqual(restAlerts.data);
    expect(textOf(alerts)).toContain(`#${first} `);
    const since = ListAlertsResult.parse((await callTool(client, 'list_alerts', { since: first })).structuredContent);
    expect(since.alerts.map((a) => a.id)).toEqual([second]);
    const refused = await callTool(client, 'list_alerts', { since: 'yesterday' });
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toBe('Invalid request body');
  });

  it('get_catchment_status: 100 postcodes a page, ascending, each once; a status filter; the whole count on every page', async () => {
    await server.runtime.catchments.replace(subscriptionId, CATCHMENT);
    const rest = CatchmentResponse.parse(
      await (await fetch(`${server.url}/api/v1/catchment`, { headers: { 'x-api-key': apiKey } })).json(),
    ).data;
    expect(rest.summary).toEqual({ green: 55, amber: 0, red: 55, unknown: 140, partly_covered: 5 });
    const pageThrough = async (args: Record<string, unknown>) => {
      const pages: { page: CatchmentStatusResult; text: string }[] = [];
      let cursor: string | undefined;
      do {
        const result = await callTool(client, 'get_catchment_status', { ...args, ...(cursor ? { cursor } : {}) });
        expect(result.isError, JSON.stringify(args)).toBeFalsy();
        const page = CatchmentStatusResult.parse(result.structuredContent);
        pages.push({ page, text: textOf(result) });
        cursor = page.next_cursor ?? undefined;
      } while (cursor);
      // Every page: the counts of the whole catchment, whatever the status and the page.
      for (const { page } of pages) {
        expect(page.data.summary).toEqual(rest.summary);
        expect(page.data.updated_at).toBe(rest.updated_at);
      }
      return pages;
    };

    const all = await pageThrough({});
    expect(all.map(({ page }) => page.data.postcodes.length)).toEqual([100, 100, 50]);
    expect(all.flatMap(({ page }) => page.data.postcodes)).toEqual(rest.postcodes);
    expect(all.map(({ page }) => page.matching)).toEqual([250, 250, 250]);
    const [first, second, third] = all.map(({ text }) => text);
    expect(first).toContain('The catchment has 250 postcodes: 55 eligible (55 green, 0 amber');
    expect(first).toContain('5 of them only partly covered');
    expect(first).toContain('Postcodes 1–100 of 250, ascending:');
    expect(first).toContain('\n6000 (Nowhere 0): covered, AGRN 5000\n');
    expect(first).not.toContain('6001 (');
    expect(first).toContain('More follow: call again with next_cursor as cursor and status "all".');
    expect(second).toContain('Postcodes 101–200 of 250, ascending:');
    expect(second).toContain(
      '\n6100 (Nowhere 100, Outback 100): partly covered, only Nowhere 100 (AGRN 5100), not Outback 100\n',
    );
    expect(second).toContain(`Not eligible (no active declaration): ${postcodesOf(101, 109, 2).join(', ')}.`);
    expect(second).toContain(`Unknown (the council area cannot be told): ${postcodesOf(110, 199).join(', ')}.`);
    expect(third).toContain('Postcodes 201–250 of 250, ascending:');
    expect(third).toContain(`Unknown (the council area cannot be told): ${postcodesOf(200, 249).join(', ')}.`);
    expect(third).toContain('This is the last page.');

    const codes = (pages: { page: CatchmentStatusResult }[]) =>
      pages.flatMap(({ page }) => page.data.postcodes.map((p) => p.postcode));
    const eligible = await pageThrough({ status: 'eligible' });
    expect(eligible).toHaveLength(1);
    expect(codes(eligible)).toEqual(postcodesOf(0, 109, 2));
    expect(eligible[0]!.page.matching).toBe(55);
    expect(eligible[0]!.text).toContain('Eligible postcodes 1–55 of 55, ascending:');
    const partly = await pageThrough({ status: 'partly_covered' });
    expect(codes(partly)).toEqual(['6100', '6102', '6104', '6106', '6108']);
    expect(partly[0]!.page.data.postcodes.every((p) => p.coverage === 'some' && p.is_eligible)).toBe(true);
    const notEligible = await pageThrough({ status: 'not_eligible' });
    expect(codes(notEligible)).toEqual(postcodesOf(1, 109, 2));
    const unknown = await pageThrough({ status: 'unknown' });
    expect(unknown.map(({ page }) => page.data.postcodes.length)).toEqual([100, 40]);
    expect(codes(unknown)).toEqual(postcodesOf(110, 249));
    expect(unknown[1]!.text).toContain('Postcodes of unknown council area 101–140 of 140');

    const declarationsCursor = ListDeclarationsResult.parse(
      (await callTool(client, 'list_declarations')).structuredContent,
    ).next_cursor!;
    const catchmentCursor = all[0]!.page.next_cursor!;
    const refusals: [string, Record<string, unknown>][] = [
      ['get_catchment_status', { cursor: 'not-a-cursor' }],
      ['get_catchment_status', { cursor: '' }],
      ['get_catchment_status', { cursor: declarationsCursor }],
      // A cursor is for the status it was given with: another would leave out that status's postcodes before it.
      ['get_catchment_status', { cursor: catchmentCursor, status: 'eligible' }],
      ['get_catchment_status', { cursor: Buffer.from('["catchment","all","60a0"]').toString('base64url') }],
      ['list_declarations', { cursor: catchmentCursor }],
    ];
    for (const [tool, args] of refusals) {
      const refused = await callTool(client, tool, args);
      expect(refused.isError, JSON.stringify(args)).toBe(true);
      expect(textOf(refused), JSON.stringify(args)).toBe('Invalid cursor: list again without it');
    }
    const badStatus = await callTool(client, 'get_catchment_status', { status: 'green' });
    expect(badStatus.isError).toBe(true);
    expect(textOf(badStatus)).toMatch(/status/);
  });

  it("another organisation's key sees its own catchment, not this one's", async () => {
    const other = await seedAccount(server.runtime);
    const otherClient = await connectMcp(server.url, { 'x-api-key': other.apiKey! });
    try {
      const status = await callTool(otherClient, 'get_catchment_status');
      expect(CatchmentStatusResult.parse(status.structuredContent).data.postcodes).toEqual([]);
      expect(ListAlertsResult.parse((await callTool(otherClient, 'list_alerts')).structuredContent).alerts).toEqual([]);
    } finally {
      await otherClient.close();
    }
  });
});
