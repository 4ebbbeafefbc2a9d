import { z } from 'zod';
import { AlertsData, AlertsQuery } from './alerts';
import { CatchmentData, CatchmentPostcode, CatchmentSummary } from './catchment';
import { CheckData, CheckRequest, DataMetadata, Instrument, Postcode } from './check';
import { API_ERRORS } from './errors';
import { endpoint } from './endpoint';
import { IsoDate } from '../domain/dates';
import { DeclarationLga, StateCode } from '../domain/declaration';
import { LgaRef } from '../domain/lga';

/*
 * The service as a Model Context Protocol server (issue #39): the tools an AI assistant may call at POST /mcp, each
 * with its arguments and its structured result. Arguments are declared as the JSON types a model sends; their values
 * are judged by the REST API's own schemas (CheckRequest, AlertsQuery …) when the tool runs, so a bad value is refused
 * with the REST API's message and counted as the REST API counts it. A value of the wrong JSON type is refused by the
 * protocol layer before the tool runs, with the same message.
 */

/** Where the MCP server answers, on the same origin as the REST API. */
export const MCP_PATH = '/mcp';

/** The most declarations one page of list_declarations holds. */
export const MAX_DECLARATIONS_PAGE = 50;

/**
 * The most postcodes one page of get_catchment_status holds: a catchment may have 5,000, hundreds of kB that would
 * swamp a model's context in one answer; 100 rows are some 30 kB.
 */
export const MAX_CATCHMENT_PAGE = 100;

/** A string argument whose wrong JSON type is refused with the REST API's message for that field. */
const stringArgument = (message: string) => z.string({ error: message });

export const CheckPostcodeArguments = z.object({
  postcode: stringArgument(API_ERRORS.invalid_postcode.message).meta({
    ...Postcode.meta(),
    pattern: '^[0-9]{4}$',
  }),
  suburb: stringArgument(API_ERRORS.invalid_suburb.message)
    .optional()
    .meta({ ...CheckRequest.shape.suburb.meta(), example: 'Spring Hill' }),
  date: stringArgument(API_ERRORS.invalid_date.message)
    .optional()
    .meta({ ...CheckRequest.shape.date.meta(), format: 'date' }),
});
export type CheckPostcodeArguments = z.infer<typeof CheckPostcodeArguments>;

/** The REST check's answer without its envelope: the same `data` and `metadata`. */
export const CheckPostcodeResult = z.object({ data: CheckData, metadata: DataMetadata });
export type CheckPostcodeResult = z.infer<typeof CheckPostcodeResult>;

/** A disaster declaration (a DRFA activation) as the tools describe it. */
export const DeclarationSummary = z
  .object({
    agrn: z.string().meta({ description: 'The disaster reference (AGRN, Australian Government Reference Number)' }),
    title: z.string(),
    state: StateCode.nullable(),
    hazard_type: z.string().nullable(),
    start_date: IsoDate,
    end_date: IsoDate.nullable().meta({ description: 'null: not ended' }),
    is_active: z
      .boolean()
      .meta({ description: 'Active today (Australia/Sydney): started, and not ended before today' }),
    url: z.string().nullable().meta({ description: 'The source page on disasterassist.gov.au' }),
    lgas: z.array(DeclarationLga).meta({ description: 'The council areas (LGAs) it names; code is the ABS LGA code' }),
    instrument: Instrument,
    instrument_note: z.string(),
  })
  .meta({ id: 'McpDeclaration' });
export type DeclarationSummary = z.infer<typeof DeclarationSummary>;

export const GetDeclarationArguments = z.object({
  agrn: stringArgument(API_ERRORS.declaration_not_found.message).meta({
    description: 'The disaster reference (AGRN): its digits',
    example: '1195',
  }),
});

export const GetDeclarationResult = z.object({ declaration: DeclarationSummary, metadata: DataMetadata });
export type GetDeclarationResult = z.infer<typeof GetDeclarationResult>;

export const ListDeclarationsArguments = z.object({
  state: StateCode.optional().meta({ description: 'Only declarations of this State or Territory' }),
  active_on: stringArgument(API_ERRORS.invalid_date.message)
    .optional()
    .meta({ description: 'Only declarations active on this day (YYYY-MM-DD)', format: 'date', example: '2025-03-10' }),
  lga: stringArgument(API_ERRORS.invalid_request.message).optional().meta({
    description: 'Only declarations naming this council area (LGA): its name or ABS code',
    example: 'Lismore',
  }),
  cursor: stringArgument(API_ERRORS.invalid_cursor.message)
    .optional()
    .meta({ description: "The previous page's next_cursor, as it was given" }),
});
export type ListDeclarationsArguments = z.infer<typeof ListDeclarationsArguments>;

export const ListDeclarationsResult = z.object({
  declarations: z.array(DeclarationSummary).meta({ description: `Newest first, at most ${MAX_DECLARATIONS_PAGE}` }),
  next_cursor: z.string().nullable().meta({ description: 'Pass as cursor for the next page; null: this is the last' }),
  metadata: DataMetadata,
});
export type ListDeclarationsResult = z.infer<typeof ListDeclarationsResult>;

export const FindPostcodesArguments = z.object({
  suburb: stringArgument(API_ERRORS.invalid_request.message).meta({
    description: 'A suburb or locality name (case and punctuation do not matter)',
    example: 'Spring Hill',
  }),
  state: StateCode.optional().meta({ description: 'Only in this State or Territory' }),
});
export type FindPostcodesArguments = z.infer<typeof FindPostcodesArguments>;

export const PostcodeMatch = z.object({
  postcode: z.string(),
  suburb: z.string(),
  state: StateCode,
  lgas: z.array(LgaRef).meta({ description: "The suburb's council area (LGA); several when the data cannot tell" }),
});

export const FindPostcodesResult = z.object({
  postcodes: z
    .array(PostcodeMatch)
    .meta({ description: 'Every postcode the suburb has, ascending; empty: none known' }),
});
export type FindPostcodesResult = z.infer<typeof FindPostcodesResult>;

/**
 * Which of the catchment's postcodes get_catchment_status lists, in words a practice manager uses. `eligible` counts
 * a partly covered postcode too (it is eligible for the patients of its covered council areas), so the two overlap.
 */
export const CatchmentStatusFilter = z.enum(['all', 'eligible', 'partly_covered', 'not_eligible', 'unknown']).meta({
  description:
    "Which postcodes to list (default all): eligible = an active disaster declaration covers all or part of it (green or amber; partly covered ones included); partly_covered = eligible only in some of its council areas (LGAs), so the patient's council area decides; not_eligible = no active declaration covers it (red); unknown = its council area cannot be told from the data, so no declaration can be tied to it",
});
export type CatchmentStatusFilter = z.infer<typeof CatchmentStatusFilter>;

/** The catchment is the key's organisation's: the arguments only choose which of its postcodes, and the page. */
export const CatchmentStatusArguments = z.object({
  status: CatchmentStatusFilter.optional(),
  cursor: stringArgument(API_ERRORS.invalid_cursor.message).optional().meta({
    description:
      "The previous page's next_cursor, as it was given, with the same status; absent: the first page. The next page starts after the last postcode given, so none is skipped or repeated while the list stays the same",
  }),
});
export type CatchmentStatusArguments = z.infer<typeof CatchmentStatusArguments>;

/** One page of the catchment: the REST answer's shape, its postcodes cut to the page and its counts over them all. */
export const CatchmentStatusResult = z.object({
  data: CatchmentData.extend({
    summary: CatchmentSummary.meta({
      description:
        'Postcodes by status_color over the WHOLE catchment, whatever the status asked for and the page (the same on every page)',
    }),
    postcodes: z.array(CatchmentPostcode).meta({
      description: `This page's postcodes of the status asked for, in ascending postcode order, at most ${MAX_CATCHMENT_PAGE}`,
    }),
  }),
  status: CatchmentStatusFilter,
  matching: z.number().int().nonnegative().meta({
    description: 'How many postcodes of the whole catchment have the status asked for, on all pages together',
  }),
  next_cursor: z.string().nullable().meta({
    description:
      'Pass as cursor (with the same status) for the next page; null: this is the last. If data.updated_at differs between pages, the list was changed in between: page again from the start for one consistent list',
  }),
  metadata: DataMetadata,
});
export type CatchmentStatusResult = z.infer<typeof CatchmentStatusResult>;

export const ListAlertsArguments = z.object({
  since: stringArgument(API_ERRORS.invalid_request.message).optional().meta(AlertsQuery.shape.since.meta()!),
});

/** The REST answer's `data` (AlertsData), as an object of its own: a tool's result schema is a plain object. */
export const ListAlertsResult = z.object({ alerts: AlertsData.shape.alerts });

/** One JSON-RPC 2.0 message as POST /mcp takes it (or an array of them), for the API document. */
export const JsonRpcMessage = z
  .object({
    jsonrpc: z.literal('2.0'),
    id: z.union([z.string(), z.number().int()]).optional().meta({ description: 'Absent on a notification' }),
    method: z.string().meta({ example: 'tools/call' }),
    params: z.record(z.string(), z.unknown()).optional(),
  })
  .meta({
    id: 'JsonRpcMessage',
    description:
      'A JSON-RPC 2.0 request or notification of the Model Context Protocol (initialize, tools/list, tools/call …)',
    example: {
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'check_postcode', arguments: { postcode: '2480' } },
    },
  });

export const JsonRpcResponse = z
  .object({
    jsonrpc: z.literal('2.0'),
    id: z.union([z.string(), z.number().int(), z.null()]),
    result: z.record(z.string(), z.unknown()).optional(),
    error: z.object({ code: z.number().int(), message: z.string(), data: z.unknown().optional() }).optional(),
  })
  .meta({
    id: 'JsonRpcResponse',
    description:
      'The result, or the protocol error (-32700 parse error, -32600 invalid request, -32601 unknown method, -32602 invalid params, -32000 refused by the transport)',
  });

/** POST /mcp, documented beside the REST API; its body is JSON-RPC, read by the MCP SDK's transport. */
export const MCP_ENDPOINTS = {
  call: endpoint({ method: 'post', path: MCP_PATH, body: JsonRpcMessage, response: JsonRpcResponse }),
} as const;
