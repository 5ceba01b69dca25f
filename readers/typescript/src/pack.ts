/**
 * A catalog packed again at run time: the budget's three strategies, as the compiler packs them
 * (compiler/reader/pack.py, line for line), for a stack of builds whose catalog no one build holds
 * (docs/format.md §16.4). Lengths are in code points. Ranked without `budgets.priority`: a stack
 * refuses a base that ranks by it.
 */

import { byCodePoint } from "./paths.js";
import { codePoints } from "./plan.js";
import { pyRstrip } from "./words.js";

const ELLIPSIS = "…";
const MIN_DESCRIPTION = 16; // shorten: below this a description says nothing; leave skills out instead
export const STRATEGIES: readonly string[] = Object.freeze(["drop", "shorten", "names-only"]);
const ROUNDS = 8; // packings, each with the room the last rendered catalog overran kept free

/** One entry the budget may list: its cost, and for the strategies that cut descriptions, the
 * description and the cost without one (-1: not computed). */
export interface Candidate {
  readonly command: string;
  readonly always: boolean;
  readonly cost: number;
  readonly description: string;
  readonly bare: number;
}

/** Included (in command order), left out (in command order), shortened descriptions. */
export interface Packed {
  readonly included: string[];
  readonly leftOut: string[];
  readonly descriptions: Map<string, string>;
}

/** The packing and the catalog it renders, packed again with room kept free while a rendered
 * catalog with shortened descriptions came out longer than the budget (at most ROUNDS times). */
export function fit(
  budget: number,
  candidates: readonly Candidate[],
  frameCost: (omitted: number) => number,
  strategy: string,
  render: (packed: Packed) => string,
): [Packed, string] {
  let slack = 0;
  let packed = pack(budget, candidates, frameCost, strategy, slack);
  let text = render(packed);
  for (let round = 1; round < ROUNDS; round++) {
    const length = codePoints(text);
    if (length <= budget || packed.descriptions.size === 0) break;
    slack += length - budget;
    packed = pack(budget, candidates, frameCost, strategy, slack);
    text = render(packed);
  }
  return [packed, text];
}

type Strategy = (room: number, ranked: readonly Candidate[]) => Packed;

/** Which entries fit: first without the notice of skills left out, and when some are left out,
 * again with room for the notice of every candidate left out. */
export function pack(
  budget: number,
  candidates: readonly Candidate[],
  frameCost: (omitted: number) => number,
  strategy: string,
  slack: number,
): Packed {
  const ranked = [...candidates.filter((c) => c.always), ...candidates.filter((c) => !c.always)];
  const room = budget - slack - frameCost(0);
  const fitting = ({ drop, shorten, "names-only": namesOnly } as Record<string, Strategy>)[
    strategy
  ] as Strategy;
  const over = strategy === "drop" && sum(ranked, (c) => c.cost) > room;
  let packed: Packed = over ? { included: [], leftOut: [], descriptions: new Map() } : fitting(room, ranked);
  if (over || packed.leftOut.length) packed = fitting(budget - slack - frameCost(candidates.length), ranked);
  const chosen = new Set(packed.included);
  return {
    included: candidates.filter((c) => chosen.has(c.command)).map((c) => c.command),
    leftOut: [...packed.leftOut].sort(byCodePoint),
    descriptions: packed.descriptions,
  };
}

function sum(items: readonly Candidate[], of: (c: Candidate) => number): number {
  return items.reduce((total, c) => total + of(c), 0);
}

function drop(room: number, ranked: readonly Candidate[]): Packed {
  let left =
    room -
    sum(
      ranked.filter((c) => c.always),
      (c) => c.cost,
    );
  const included: string[] = [];
  const leftOut: string[] = [];
  for (const c of ranked) {
    if (c.always) {
      included.push(c.command);
    } else if (c.cost <= left) {
      included.push(c.command);
      left -= c.cost;
    } else {
      leftOut.push(c.command);
    }
  }
  return { included, leftOut, descriptions: new Map() };
}

function shorten(room: number, ranked: readonly Candidate[]): Packed {
  if (sum(ranked, (c) => c.cost) <= room) return everything(ranked);
  const kept = [...ranked];
  const leftOut: string[] = [];
  let limit = longestFitting(room, kept);
  while (limit === null && kept.some((c) => !c.always)) {
    let at = kept.length - 1;
    while ((kept[at] as Candidate).always) at--; // the lowest ranked that is not always-on
    leftOut.push((kept[at] as Candidate).command);
    kept.splice(at, 1);
    limit = longestFitting(room, kept);
  }
  const cut = limit ?? MIN_DESCRIPTION;
  const descriptions = new Map<string, string>();
  for (const c of kept) {
    if (!c.always && codePoints(c.description) > cut)
      descriptions.set(c.command, shortened(c.description, cut));
  }
  return { included: kept.map((c) => c.command), leftOut, descriptions };
}

/** The longest description length at which every kept entry fits; null below MIN_DESCRIPTION. */
function longestFitting(room: number, kept: readonly Candidate[]): number | null {
  const lengths = kept.map((c) => codePoints(c.description));
  const total = (limit: number): number =>
    kept.reduce((t, c, i) => {
      const n = lengths[i] as number;
      return t + (c.always ? c.cost : c.cost - Math.max(0, n - limit) + (n > limit ? 1 : 0));
    }, 0);
  let low = MIN_DESCRIPTION;
  let high = Math.max(0, ...lengths);
  if (total(low) > room) return null;
  while (low < high) {
    // total() grows with the limit: the last limit that fits
    const mid = Math.floor((low + high + 1) / 2);
    if (total(mid) <= room) low = mid;
    else high = mid - 1;
  }
  return low;
}

/** The first `limit` code points, trailing white space removed, then `…`. */
function shortened(text: string, limit: number): string {
  return pyRstrip(Array.from(text).slice(0, Math.max(0, limit)).join("")) + ELLIPSIS;
}

function namesOnly(room: number, ranked: readonly Candidate[]): Packed {
  if (sum(ranked, (c) => c.cost) <= room) return everything(ranked);
  const bare = (c: Candidate): number => (c.bare >= 0 ? c.bare : c.cost);
  let total = sum(ranked, (c) => c.cost);
  const descriptions = new Map<string, string>();
  for (let i = ranked.length - 1; i >= 0 && total > room; i--) {
    const c = ranked[i] as Candidate; // lowest rank first
    if (!c.always && bare(c) < c.cost) {
      total -= c.cost - bare(c);
      descriptions.set(c.command, "");
    }
  }
  const gone = new Set<string>();
  const leftOut: string[] = [];
  for (let i = ranked.length - 1; i >= 0 && total > room; i--) {
    const c = ranked[i] as Candidate;
    if (!c.always) {
      total -= bare(c);
      gone.add(c.command);
      leftOut.push(c.command);
      descriptions.delete(c.command);
    }
  }
  return {
    included: ranked.filter((c) => !gone.has(c.command)).map((c) => c.command),
    leftOut,
    descriptions,
  };
}

function everything(ranked: readonly Candidate[]): Packed {
  return { included: ranked.map((c) => c.command), leftOut: [], descriptions: new Map() };
}
