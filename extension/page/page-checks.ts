import type { CheckOutcome, Problem } from '../../ui/result/outcome';

/**
 * Distinct postcodes one page may have checked in a minute without a person asking. The clinic's key is shared by
 * every workstation (100 checks a minute by default): a page of hundreds of postcodes must leave most of that to the
 * others. A person pressing a badge is not held back.
 */
export const PAGE_CHECKS_PER_MINUTE = 20;
const WINDOW_MS = 60_000;
/** How long an answer is given to other fields of the page with the same postcode without asking again. */
const ANSWER_REUSE_MS = 60_000;
/** Answers about the postcode itself, worth giving to every field with it; others are the moment's (a wait, an error). */
const REUSABLE: ReadonlySet<Problem> = new Set(['postcode_not_found', 'invalid_postcode']);
/** How long the first choice of what to check waits for the fields' visibility (the IntersectionObserver's first word). */
const VISIBILITY_WAIT_MS = 500;

/** A field (or a postcode in text) that wants the answer for its postcode. */
export interface Waiter {
  /** Whether it is in view: the IntersectionObserver's last word, undefined until it has said one. */
  visible(): boolean | undefined;
  /** Shows what is known: the check under way, its answer, or that it is not checked yet. */
  deliver(outcome: CheckOutcome | { pending: string }): void;
}

export interface PageChecksDeps {
  /** The background's check; never rejects. */
  check(postcode: string): Promise<CheckOutcome>;
  now?: () => number;
  perMinute?: number;
}

interface PostcodeState {
  waiters: Set<Waiter>;
  inFlight: boolean;
  answer?: { outcome: CheckOutcome; at: number };
  /** Told "not checked yet": asked again only once one of its fields is in view, or a person presses a badge. */
  deferred: boolean;
  /** When it was first wanted: fields further down the page come later. */
  order: number;
}

/**
 * The checks of one page: each distinct postcode asked once however many fields hold it (every field gets the
 * answer), the ones in view first, and at most `perMinute` distinct postcodes a minute. The rest say "not checked
 * yet" until they come into view (then as the minute allows) or a person presses their badge.
 */
export class PageChecks {
  private readonly states = new Map<string, PostcodeState>();
  /** When each of the last minute's checks was sent. */
  private readonly sent: number[] = [];
  private readonly now: () => number;
  private readonly perMinute: number;
  private pumpTimer: ReturnType<typeof setTimeout> | null = null;
  private refillTimer: ReturnType<typeof setTimeout> | null = null;
  private nextOrder = 0;
  private waitingSince: number | null = null;

  constructor(private readonly deps: PageChecksDeps) {
    this.now = deps.now ?? Date.now;
    this.perMinute = deps.perMinute ?? PAGE_CHECKS_PER_MINUTE;
  }

  /**
   * `waiter` wants the answer for `postcode`: given at once when the page has it, else when it comes. `now` (a
   * person pressed the badge) asks at once, whatever the minute's count.
   */
  request(postcode: string, waiter: Waiter, now = false): void {
    const state = this.stateOf(postcode);
    if (!now && state.answer && this.now() - state.answer.at < ANSWER_REUSE_MS) {
      waiter.deliver(state.answer.outcome);
      return;
    }
    state.answer = undefined;
    state.waiters.add(waiter);
    if (state.inFlight) {
      waiter.deliver({ pending: postcode });
    } else if (now) {
      this.send(postcode, state);
    } else {
      waiter.deliver(state.deferred ? notCheckedYet(postcode) : { pending: postcode });
      this.schedulePump();
    }
  }

  /** `waiter` no longer wants the answer for `postcode` (its field changed or went). */
  cancel(postcode: string, waiter: Waiter): void {
    const state = this.states.get(postcode);
    if (!state) return;
    state.waiters.delete(waiter);
    if (state.waiters.size === 0 && !state.inFlight && !state.answer) this.states.delete(postcode);
  }

  /** Something came into view: what waits for it may be checked now. */
  schedulePump(delay = 0): void {
    if (this.pumpTimer !== null) return;
    this.pumpTimer = setTimeout(() => {
      this.pumpTimer = null;
      this.pump();
    }, delay);
  }

  /** Forgets the answers the page holds (the server or key changed: they may not be this server's). */
  forget(): void {
    for (const [postcode, state] of this.states) {
      state.answer = undefined;
      if (state.waiters.size === 0 && !state.inFlight) this.states.delete(postcode);
    }
  }

  stop(): void {
    if (this.pumpTimer !== null) clearTimeout(this.pumpTimer);
    if (this.refillTimer !== null) clearTimeout(this.refillTimer);
    this.pumpTimer = this.refillTimer = null;
    this.states.clear();
  }

  /** Sends what the minute allows, in view first; tells the rest they are not checked yet. */
  private pump(): void {
    const candidates = [...this.states].filter(
      ([, state]) => state.waiters.size > 0 && !state.inFlight && (!state.deferred || anyVisible(state)),
    );
    if (candidates.length === 0) return;
    const room = this.room();
    if (candidates.length > room && this.visibilityUnknown(candidates)) return;
    this.waitingSince = null;
    candidates.sort(([, a], [, b]) => Number(anyVisible(b)) - Number(anyVisible(a)) || a.order - b.order);
    candidates.slice(0, room).forEach(([postcode, state]) => this.send(postcode, state));
    for (const [postcode, state] of candidates.slice(room)) {
      if (state.deferred) continue;
      state.deferred = true;
      for (const waiter of state.waiters) waiter.deliver(notCheckedYet(postcode));
    }
    if (candidates.length > room) this.refillLater();
  }

  /**
   * Whether to wait for the fields' visibility before choosing which to check: until the IntersectionObserver has
   * spoken for them all (it does within a frame), at most VISIBILITY_WAIT_MS. A hidden tab waits until it is shown.
   */
  private visibilityUnknown(candidates: [string, PostcodeState][]): boolean {
    const unknown = candidates.some(([, state]) => [...state.waiters].some((w) => w.visible() === undefined));
    if (!unknown) return false;
    this.waitingSince ??= this.now();
    if (this.now() - this.waitingSince >= VISIBILITY_WAIT_MS) return false;
    this.schedulePump(50);
    return true;
  }

  /** Checks the minute still allows. */
  private room(): number {
    const since = this.now() - WINDOW_MS;
    while (this.sent.length > 0 && this.sent[0]! <= since) this.sent.shift();
    return Math.max(0, this.perMinute - this.sent.length);
  }

  /** When the oldest check of the minute drops out of it, fields in view that were not checked are. */
  private refillLater(): void {
    if (this.refillTimer !== null || this.sent.length === 0) return;
    this.refillTimer = setTimeout(
      () => {
        this.refillTimer = null;
        this.pump();
      },
      Math.max(0, this.sent[0]! + WINDOW_MS - this.now()),
    );
  }

  private send(postcode: string, state: PostcodeState): void {
    state.inFlight = true;
    state.deferred = false;
    this.sent.push(this.now());
    for (const waiter of state.waiters) waiter.deliver({ pending: postcode });
    void this.deps.check(postcode).then((outcome) => {
      state.inFlight = false;
      if (outcome.ok || REUSABLE.has(outcome.problem)) state.answer = { outcome, at: this.now() };
      const waiters = [...state.waiters];
      state.waiters.clear();
      if (!state.answer) this.states.delete(postcode);
      for (const waiter of waiters) waiter.deliver(outcome);
    });
  }

  private stateOf(postcode: string): PostcodeState {
    let state = this.states.get(postcode);
    if (!state) {
      state = { waiters: new Set(), inFlight: false, deferred: false, order: this.nextOrder++ };
      this.states.set(postcode, state);
    }
    return state;
  }
}

function anyVisible(state: PostcodeState): boolean {
  for (const waiter of state.waiters) if (waiter.visible()) return true;
  return false;
}

function notCheckedYet(postcode: string): CheckOutcome {
  return { ok: false, postcode, problem: 'not_checked_yet' };
}
