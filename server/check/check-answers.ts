import { CheckRequest, type CheckResponse } from '../../shared/api/check';
import type { ApiErrorCode } from '../../shared/api/errors';
import { sydneyToday } from '../../shared/domain/dates';
import { evaluateEligibility } from '../../shared/eligibility/evaluate';
import type { DeclarationRepository } from '../declarations/declaration-repository';
import { isStale } from '../declarations/freshness';
import type { PostcodeIndex } from '../postcodes/postcode-index';
import { AnswerCache } from './answer-cache';
import { dataMetadata, lastRefreshOrUnavailable } from './data-metadata';

/**
 * A check's whole response as sent, and its `data`: a view of the same bytes, which a batch splices into its own
 * response as it is, so an answer is encoded once whether it is asked alone or in a list.
 */
export interface EncodedAnswer {
  readonly response: Buffer;
  readonly data: Buffer;
  readonly byteLength: number;
}

/** The data answers given at one moment are computed from. */
export interface DataNow {
  readonly lastUpdated: string;
  /** What an answer depends on besides its question: the data's versions, its refresh and whether that is stale. */
  readonly version: string;
}

const DATA_START = '{"success":true,"data":';
const DATA_OFFSET = Buffer.byteLength(DATA_START);

/** Written as JSON.stringify would write the whole response, remembering where `data` lies in it. */
function encode(response: CheckResponse): EncodedAnswer {
  const data = JSON.stringify(response.data);
  const bytes = Buffer.from(`${DATA_START}${data},"metadata":${JSON.stringify(response.metadata)}}`);
  const end = DATA_OFFSET + Buffer.byteLength(data);
  return { response: bytes, data: bytes.subarray(DATA_OFFSET, end), byteLength: bytes.length };
}

function errorForField(path: readonly PropertyKey[]): ApiErrorCode {
  if (path[0] === 'date') return 'invalid_date';
  if (path[0] === 'suburb') return 'invalid_suburb';
  return 'invalid_postcode';
}

/**
 * A check's body as the check reads it: the question, or the code of its schema's first objection. The single check
 * and each item of a batch are read by this one function, so an item is refused exactly as the check would refuse it.
 */
export function questionOf(body: unknown): { question: CheckRequest } | { refused: ApiErrorCode } {
  const parsed = CheckRequest.safeParse(body);
  if (parsed.success) return { question: parsed.data };
  return { refused: errorForField(parsed.error.issues[0]?.path ?? []) };
}

/**
 * The check's answers: one question in, its encoded response out, from one cache shared by the key's check, the
 * check by hand and the batch.
 */
export class CheckAnswers {
  private readonly cache = new AnswerCache<EncodedAnswer>();

  constructor(
    private readonly declarations: DeclarationRepository,
    private readonly postcodes: PostcodeIndex,
  ) {}

  /** The data as of `now`; before the first refresh, the 503 `data_unavailable` (thrown). */
  dataAt(now: Date): DataNow {
    const { declarations, postcodes } = this;
    const lastUpdated = lastRefreshOrUnavailable(declarations, now);
    const stale = isStale(lastUpdated, now);
    return { lastUpdated, version: `${declarations.version}:${postcodes.version ?? 0}:${lastUpdated}:${stale}` };
  }

  /**
   * `question`'s answer at `now`, or the code it is refused with, in the check's order: a day after today, then the
   * data (`dataAt`, unless given), an unknown postcode, a suburb outside it.
   */
  answer(question: CheckRequest, now: Date, data?: DataNow): EncodedAnswer | ApiErrorCode {
    const today = sydneyToday(now);
    if (question.date !== undefined && question.date > today) return 'invalid_date';
    const { lastUpdated, version } = data ?? this.dataAt(now);
    const { postcodes, declarations } = this;
    const area =
      question.suburb === undefined
        ? postcodes.get(question.postcode)
        : postcodes.narrow(question.postcode, question.suburb);
    if (area === undefined) return 'postcode_not_found';
    if (area === null) return 'invalid_suburb';

    const day = question.date ?? today;
    // A response depends only on the data, the day and the question, so it is encoded once and served as bytes
    // (outside the JS heap: a response adds no kilobytes of short-lived strings for the GC to move).
    return this.cache.get(version, `${question.postcode}|${question.suburb ?? ''}|${day}`, () =>
      encode({
        success: true,
        data: evaluateEligibility({ area, related: declarations.related(area.lgas), day, lastUpdated }),
        metadata: dataMetadata(lastUpdated, now, day),
      }),
    );
  }
}
