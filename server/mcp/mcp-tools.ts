import type { z } from 'zod';
import { AlertsQuery } from '../../shared/api/alerts';
import { IsoDate, sydneyToday } from '../../shared/domain/dates';
import {
  CatchmentStatusArguments,
  CatchmentStatusResult,
  CheckPostcodeArguments,
  CheckPostcodeResult,
  FindPostcodesArguments,
  FindPostcodesResult,
  GetDeclarationArguments,
  GetDeclarationResult,
  ListAlertsArguments,
  ListAlertsResult,
  ListDeclarationsArguments,
  ListDeclarationsResult,
  MAX_CATCHMENT_PAGE,
  MAX_DECLARATIONS_PAGE,
} from '../../shared/api/mcp';
import { plainText } from '../../shared/api/text-fields';
import type { AlertsService } from '../alerts/alerts-service';
import type { CatchmentService } from '../catchment/catchment-service';
import { questionOf, type CheckAnswers, type EncodedAnswer } from '../check/check-answers';
import { dataMetadata, lastRefreshOrUnavailable } from '../check/data-metadata';
import { ContractError } from '../contract-error';
import type { DeclarationRepository } from '../declarations/declaration-repository';
import type { SuburbIndex } from '../postcodes/suburb-index';
import {
  alertsWords,
  catchmentWords,
  checkWords,
  declarationListWords,
  declarationWords,
  postcodesWords,
} from './tool-words';
import { catchmentPage } from './catchment-pages';
import { declarationSummary, type DeclarationPages } from './declaration-views';
import type { ToolAnswer } from './tool-call';

/** What the tools answer from: the REST API's own services and caches. */
export interface McpToolDeps {
  answers: CheckAnswers;
  declarations: DeclarationRepository;
  pages: DeclarationPages;
  suburbs: SuburbIndex;
  catchments: CatchmentService;
  alerts: AlertsService;
}

/** Whose organisation a call is for: the key's subscription. */
export interface ToolCaller {
  subscriptionId: string;
}

/** One tool: what tools/list says of it, and how a call is answered. */
export interface McpTool<I extends z.ZodObject = z.ZodObject, O extends z.ZodObject = z.ZodObject> {
  name: string;
  title: string;
  description: string;
  inputSchema: I;
  outputSchema: O;
  answer(args: z.infer<I>, now: Date, caller: ToolCaller): ToolAnswer<z.infer<O>> | Promise<ToolAnswer<z.infer<O>>>;
}

const defineTool = <I extends z.ZodObject, O extends z.ZodObject>(tool: McpTool<I, O>): McpTool => tool as McpTool;

/** Said by every description: what a model must not take the answers for. */
const NOT_ADVICE =
  'It is reference information from the published disaster declarations, not clinical, legal or billing advice: the clinician decides and documents.';

/** The data's refresh time, or the 503 data_unavailable before the first refresh (as every REST answer). */
function metadataOf(declarations: DeclarationRepository, now: Date, day = sydneyToday(now)) {
  return dataMetadata(lastRefreshOrUnavailable(declarations, now), now, day);
}

/** The check's answers decoded and worded once each: the cache hands out the same encoded answer while the data holds. */
const toolAnswers = new WeakMap<EncodedAnswer, ToolAnswer<z.infer<typeof CheckPostcodeResult>>>();

function toolAnswerOf(answer: EncodedAnswer): ToolAnswer<z.infer<typeof CheckPostcodeResult>> {
  let toolAnswer = toolAnswers.get(answer);
  if (!toolAnswer) {
    const { data, metadata } = JSON.parse(answer.response.toString('utf8')) as z.infer<typeof CheckPostcodeResult>;
    const structured = { data, metadata };
    toolAnswer = { structured, text: checkWords(structured) };
    toolAnswers.set(answer, toolAnswer);
  }
  return toolAnswer;
}

/** A day argument as the REST API reads one: invalid_date unless a calendar day. */
function dayOf(value: string | undefined): string | undefined {
  if (value !== undefined && !IsoDate.safeParse(value).success) throw new ContractError('invalid_date');
  return value;
}

const SuburbName = plainText().trim().min(1).max(100);

/** The tools, over the REST API's services: each answers what the corresponding REST answer would. */
export function mcpTools(deps: McpToolDeps): McpTool[] {
  return [checkTool(deps), ...declarationTools(deps), findPostcodesTool(deps), ...organisationTools(deps)];
}

function checkTool({ answers }: McpToolDeps): McpTool {
  return defineTool({
    name: 'check_postcode',
    title: 'Check a postcode for a disaster declaration (Medicare telehealth)',
    description:
      "Tells whether an Australian postcode is in a council area (LGA) under an active natural disaster declaration (a DRFA activation), which exempts a Medicare telehealth consult from the 'established clinical relationship' rule. Give the patient's postcode, and their suburb when the postcode spans several council areas; `date` asks about a past day (a claim audit). Answers the headline, the coverage (all, some or none of the postcode's council areas), the council areas, the disasters with their references (AGRN), proforma text for the clinical notes and the data's date. " +
      NOT_ADVICE,
    inputSchema: CheckPostcodeArguments,
    outputSchema: CheckPostcodeResult,
    answer: (args, now) => {
      const read = questionOf(args);
      if ('refused' in read) throw new ContractError(read.refused);
      const answer = answers.answer(read.question, now);
      if (typeof answer === 'string') throw new ContractError(answer);
      return toolAnswerOf(answer);
    },
  });
}

function declarationTools({ declarations, pages }: McpToolDeps): McpTool[] {
  return [
    defineTool({
      name: 'get_declaration',
      title: 'Get a disaster declaration by its reference (AGRN)',
      description:
        'Looks up one disaster declaration (a DRFA activation) by its Australian Government Reference Number (AGRN): its title, State, hazard, start and end dates, the council areas (LGAs) it names, the source page and the instrument behind it. ' +
        NOT_ADVICE,
      inputSchema: GetDeclarationArguments,
      outputSchema: GetDeclarationResult,
      answer: ({ agrn }, now) => {
        const metadata = metadataOf(declarations, now);
        const found = /^[0-9]{1,20}$/.test(agrn.trim()) ? declarations.get(agrn.trim()) : undefined;
        if (!found) throw new ContractError('declaration_not_found');
        const declaration = declarationSummary(found, metadata.checked_date);
        return { structured: { declaration, metadata }, text: declarationWords(declaration, metadata) };
      },
    }),
    defineTool({
      name: 'list_declarations',
      title: 'List disaster declarations',
      description:
        `Lists disaster declarations (DRFA activations), newest first, ${MAX_DECLARATIONS_PAGE} a page: filter by State, by a day they were active on, or by a council area (LGA) name or ABS code. When next_cursor is not null, call again with it as cursor for the next page. ` +
        NOT_ADVICE,
      inputSchema: ListDeclarationsArguments,
      outputSchema: ListDeclarationsResult,
      answer: ({ state, active_on, lga, cursor }, now) => {
        const metadata = metadataOf(declarations, now);
        if (lga !== undefined && !SuburbName.safeParse(lga).success) throw new ContractError('invalid_request');
        const page = pages.page({ state, activeOn: dayOf(active_on), lga, cursor });
        const structured = {
          declarations: page.declarations.map((d) => declarationSummary(d, metadata.checked_date)),
          next_cursor: page.nextCursor,
          metadata,
        };
        return { structured, text: declarationListWords(structured) };
      },
    }),
  ];
}

function findPostcodesTool({ suburbs }: McpToolDeps): McpTool {
  return defineTool({
    name: 'find_postcodes',
    title: 'Find the postcodes of a suburb',
    description:
      "Finds the postcodes of an Australian suburb or locality, with the suburb's council area (LGA) in each: for when you have a suburb but not a postcode. Then check the postcode (with the suburb) with check_postcode. " +
      NOT_ADVICE,
    inputSchema: FindPostcodesArguments,
    outputSchema: FindPostcodesResult,
    answer: ({ suburb, state }) => {
      const name = SuburbName.safeParse(suburb);
      if (!name.success) throw new ContractError('invalid_request');
      const structured = { postcodes: suburbs.find(name.data, state) };
      return { structured, text: postcodesWords(name.data, structured) };
    },
  });
}

/** The key's organisation's own: its catchment and its alerts. */
function organisationTools({ declarations, catchments, alerts }: McpToolDeps): McpTool[] {
  return [
    defineTool({
      name: 'get_catchment_status',
      title: "The practice's catchment postcodes and their status",
      description:
        `The catchment of the organisation that owns the API key (the postcodes its patients come from, set in the console): counts by status over the whole catchment, and a page of at most ${MAX_CATCHMENT_PAGE} postcodes in ascending order, each with its status now (green, amber, red, unknown), its council areas (LGAs), which of them are covered, and the active disasters (AGRN) covering it. Ask for one status (eligible, partly_covered, not_eligible, unknown) to list only those. When next_cursor is not null, call again with it as cursor and the same status for the next page; each page is one call on the rate limit. ` +
        NOT_ADVICE,
      inputSchema: CatchmentStatusArguments,
      outputSchema: CatchmentStatusResult,
      answer: async ({ status = 'all', cursor }, now, caller) => {
        const metadata = metadataOf(declarations, now);
        const catchment = await catchments.view(caller.subscriptionId, metadata.checked_date);
        const page = catchmentPage(catchment, status, cursor);
        const structured = {
          data: { ...catchment, postcodes: page.postcodes },
          status,
          matching: page.matching,
          next_cursor: page.nextCursor,
          metadata,
        };
        return { structured, text: catchmentWords(structured, page.first) };
      },
    }),
    defineTool({
      name: 'list_alerts',
      title: "The practice's catchment alerts",
      description:
        "Changes to the organisation's catchment postcodes found at each data refresh (a postcode became eligible, stopped being eligible, a declaration was added or ended), oldest first, kept 90 days. Pass the last alert id seen as `since` to get only newer ones. " +
        NOT_ADVICE,
      inputSchema: ListAlertsArguments,
      outputSchema: ListAlertsResult,
      answer: async ({ since }, _now, caller) => {
        if (!AlertsQuery.safeParse({ since }).success) throw new ContractError('invalid_request');
        const structured = { alerts: await alerts.list(caller.subscriptionId, since) };
        return { structured, text: alertsWords(structured) };
      },
    }),
  ];
}
