/**
 * The capacity search of `npm run load:fleet`: the calls per second this machine carries before the call latency
 * turns up, found in short steps (doubling, then bisecting), so that the measured run asks a stated share of it and
 * its bars measure the client rather than a machine at its limit.
 */

/** What one step of the search measured. */
export interface CapacityStep {
  /** Calls per second asked, over every process. */
  askedPerS: number
  /** Calls per second started and settled. */
  madePerS: number
  /** Turns skipped because the portal's previous call still ran, and turns asked. */
  skipped: number
  turns: number
  failed: number
  p50Ms: number
  p99Ms: number
}

/** A step whose p99 is more than this many times the first step's (the machine at ease) has passed the knee. */
export const KNEE_FACTOR = 3
/** ...unless the p99 is under this, ms: a few ms more at a low latency is noise, not queueing. */
export const KNEE_FLOOR_MS = 20
/** A step that skipped more than this share of its turns, or made less than 1 minus it of the rate, fell behind. */
export const BEHIND_SHARE = 0.02
/** Bisection stops when the bracket is this narrow (the rate not carried over the rate carried), or after this many. */
export const BRACKET = 1.2
export const MAX_BISECTIONS = 3

/** The p99 above which a step is past the knee, given the first step's p99. */
export function kneeMs(firstP99Ms: number): number {
  return Math.max(KNEE_FACTOR * firstP99Ms, KNEE_FLOOR_MS)
}

/**
 * Whether the machine carried `step`: no failed call, every turn kept (bar {@link BEHIND_SHARE}), and a p99 under
 * {@link kneeMs} of the first step's.
 */
export function carried(step: CapacityStep, firstP99Ms: number): boolean {
  return (
    step.failed === 0 &&
    step.skipped <= BEHIND_SHARE * step.turns &&
    step.madePerS >= (1 - BEHIND_SHARE) * step.askedPerS &&
    step.p99Ms <= kneeMs(firstP99Ms)
  )
}

/** What the search found. */
export interface Capacity {
  /** The highest rate carried, calls per second. */
  perS: number
  /** The lowest rate not carried, or `null` when the ceiling was carried (the capacity is at least {@link perS}). */
  notCarriedPerS: number | null
  /** The p99 of the first step and the knee it sets, ms. */
  firstP99Ms: number
  kneeMs: number
  steps: Array<CapacityStep & { carried: boolean }>
}

/**
 * Runs steps from `startPerS`, doubling while each is carried (up to `ceilingPerS`), then bisects (geometric mean)
 * between the last rate carried and the first not carried. When even the first step is not carried, halves down (at
 * most three times); the first step's p99 stays the reference.
 */
export async function searchCapacity(
  step: (askedPerS: number) => Promise<CapacityStep>,
  startPerS: number,
  ceilingPerS: number,
): Promise<Capacity> {
  const steps: Capacity['steps'] = []
  const first = await step(startPerS)
  const firstP99Ms = first.p99Ms
  const judge = async (measured: CapacityStep): Promise<boolean> => {
    const ok = carried(measured, firstP99Ms)
    steps.push({ ...measured, carried: ok })
    return ok
  }
  let low = 0
  let high: number | null = null
  if (await judge(first)) low = startPerS
  else high = startPerS
  // Below the first step: halve until carried.
  for (let rate = startPerS / 2; low === 0 && steps.length <= 3; rate /= 2) {
    if (await judge(await step(rate))) low = rate
    else high = rate
  }
  if (low === 0) return { perS: 0, notCarriedPerS: high, firstP99Ms, kneeMs: kneeMs(firstP99Ms), steps }
  // Doubling up to the ceiling.
  while (high === null && low < ceilingPerS) {
    const rate = Math.min(ceilingPerS, low * 2)
    if (await judge(await step(rate))) low = rate
    else high = rate
  }
  for (
    let bisections = 0;
    high !== null && high / low > BRACKET && bisections < MAX_BISECTIONS;
    bisections += 1
  ) {
    const rate = Math.round(Math.sqrt(low * high))
    if (await judge(await step(rate))) low = rate
    else high = rate
  }
  return { perS: low, notCarriedPerS: high, firstP99Ms, kneeMs: kneeMs(firstP99Ms), steps }
}
