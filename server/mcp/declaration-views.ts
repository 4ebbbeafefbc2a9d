import { MAX_DECLARATIONS_PAGE, type DeclarationSummary } from '../../shared/api/mcp';
import { isCalendarDate } from '../../shared/domain/dates';
import type { Declaration, StateCode } from '../../shared/domain/declaration';
import { normaliseLgaName } from '../../shared/domain/lga-name';
import { declarationInstrument } from '../../shared/eligibility/instrument';
import { compareAgrn, isActive } from '../../shared/eligibility/status';
import { ContractError } from '../contract-error';
import type { DeclarationRepository } from '../declarations/declaration-repository';
import { decodeCursor, encodeCursor } from './page-cursor';

/** A declaration as the tools describe it, judged on `today`. */
export function declarationSummary(declaration: Declaration, today: string): DeclarationSummary {
  const { agrn, title, state, hazard_type, start_date, end_date, url, lgas } = declaration;
  return {
    agrn,
    title,
    state,
    hazard_type,
    start_date,
    end_date,
    is_active: isActive(declaration, today),
    url,
    lgas: lgas.map(({ name, code }) => ({ name, code })),
    ...declarationInstrument(declaration),
  };
}

/** Where a declaration stands in a list: what the order and a cursor read of it. */
type Position = Pick<Declaration, 'start_date' | 'agrn'>;

/** Newest first: the later start, then the higher AGRN. */
function newestFirst(a: Position, b: Position): number {
  if (a.start_date !== b.start_date) return a.start_date < b.start_date ? 1 : -1;
  return compareAgrn(b.agrn, a.agrn);
}

export interface DeclarationFilter {
  state?: StateCode;
  /** A calendar day: only the declarations active on it. */
  activeOn?: string;
  /** A council area's name (any spelling normaliseLgaName brings together) or its ABS code. */
  lga?: string;
  /** The previous page's next cursor. */
  cursor?: string;
}

function cursorAfter({ start_date, agrn }: Position): string {
  return encodeCursor([start_date, agrn]);
}

/** The position a cursor of list_declarations names; invalid_cursor for anything this server did not hand out. */
function positionOf(cursor: string): Position {
  const position = decodeCursor(cursor);
  if (position.length !== 2) throw new ContractError('invalid_cursor');
  const [start_date, agrn] = position;
  if (typeof start_date !== 'string' || !isCalendarDate(start_date)) throw new ContractError('invalid_cursor');
  if (typeof agrn !== 'string' || !/^[0-9]{1,20}$/.test(agrn)) throw new ContractError('invalid_cursor');
  return { start_date, agrn };
}

function namesLga(declaration: Declaration, lga: string): boolean {
  const wanted = lga.trim();
  if (/^[0-9]{5}$/.test(wanted)) return declaration.lgas.some((l) => l.code === wanted);
  const name = normaliseLgaName(wanted);
  return name !== '' && declaration.lgas.some((l) => normaliseLgaName(l.name) === name);
}

/**
 * The declarations in pages for list_declarations: sorted once per version of the data, then filtered and cut after
 * the cursor's position. The cursor is the last declaration given (its start date and AGRN), so a page follows on
 * from the previous one even when a refresh added declarations in between: nothing is given twice or skipped.
 */
export class DeclarationPages {
  private sorted: { version: number; list: readonly Declaration[] } | null = null;

  constructor(private readonly declarations: Pick<DeclarationRepository, 'version' | 'all'>) {}

  page(filter: DeclarationFilter): { declarations: Declaration[]; nextCursor: string | null } {
    const after = filter.cursor === undefined ? null : positionOf(filter.cursor);
    const page: Declaration[] = [];
    for (const declaration of this.newestFirst()) {
      if (after && newestFirst(declaration, after) <= 0) continue;
      if (filter.state !== undefined && declaration.state !== filter.state) continue;
      if (filter.activeOn !== undefined && !isActive(declaration, filter.activeOn)) continue;
      if (filter.lga !== undefined && !namesLga(declaration, filter.lga)) continue;
      // One more than a page: another page follows.
      if (page.length === MAX_DECLARATIONS_PAGE) return { declarations: page, nextCursor: cursorAfter(page.at(-1)!) };
      page.push(declaration);
    }
    return { declarations: page, nextCursor: null };
  }

  private newestFirst(): readonly Declaration[] {
    const { version } = this.declarations;
    if (this.sorted?.version !== version) {
      this.sorted = { version, list: [...this.declarations.all()].sort(newestFirst) };
    }
    return this.sorted.list;
  }
}
