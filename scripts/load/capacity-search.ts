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

/** A step whose p99 is more than this many times the reference's (the machine at ease) has passed the knee. */
export const KNEE_FACTOR = 3
/**
 * ...unless the p99 is under this, ms: the measured run's p99 bar. Under it a short step's p99 is noise more than
 * queueing: on a quiet machine, steps of 5 s at one rate read 8 to 23 ms, so a knee set at 3 times the lowest of them
 * judged steps of 28 ms not carried and halved the capacity found from one run to the next. A rate whose p99 stays
 * under the bar is not one the bar could fault.
 */
export const KNEE_FLOOR_MS = 50
/** A step that skipped more than this share of its turns fell behind. */
export const BEHIND_SHARE = 0.02
/**
 * The machine is at ease when halving the rate no longer cuts the p99 by this share of the lowest p99 so far: the
 * latency is the calls' own, not a queue's. The search halves from its first step until then (at most
 * {@link MAX_HALVINGS} times); the reference is the step of the lowest p99 whose calls kept pace (no failure, no
 * turn skipped past {@link BEHIND_SHARE}).
 */
export const EASE_CUT = 1 / 3
export const MAX_HALVINGS = 5
/** Bisection stops when the bracket is this narrow (the rate not carried over the rate carried), or after this many. */
export const BRACKET = 1.2
export const MAX_BISECTIONS = 3

/** The p99 above which a step is past the knee, given the reference step's p99. */
export function kneeMs(referenceP99Ms: number): number {
  return Math.max(KNEE_FACTOR * referenceP99Ms, KNEE_FLOOR_MS)
}

/**
 * Whether the machine carried `step`: no failed call, every turn kept (bar {@link BEHIND_SHARE}), and a p99 under
 * {@link kneeMs} of the reference step's.
 */
export function carried(step: CapacityStep, referenceP99Ms: number): boolean {
  return (
    step.failed === 0 && step.skipped <= BEHIND_SHARE * step.turns && step.p99Ms <= kneeMs(referenceP99Ms)
  )
}

/** What the search found. */
export interface Capacity {
  /** The highest rate carried, calls per second; 0 when none was. */
  perS: number
  /** The lowest rate above it not carried, or `null` when the ceiling was carried (the capacity is at least {@link perS}). */
  notCarriedPerS: number | null
  /** The rate and p99 of the reference step (the machine at ease), and the knee it sets, ms. */
  referencePerS: number
  referenceP99Ms: number
  kneeMs: number
  /** Every step in the order run, judged against the reference. */
  steps: Array<CapacityStep & { carried: boolean }>
}

/**
 * From `startPerS`: halves the rate until the machine is at ease (see {@link EASE_CUT}, which also says which step is
 * the reference), then doubles from the highest rate carried while each step is carried (up to `ceilingPerS`), then
 * bisects (geometric mean) between the highest rate carried and the lowest not carried.
 */
export async function searchCapacity(
  step: (askedPerS: number) => Promise<CapacityStep>,
  startPerS: number,
  ceilingPerS: number,
): Promise<Capacity> {
  const steps: CapacityStep[] = [await step(startPerS)]
  // The reference: the step of the lowest p99 so far, while halving the rate still cuts it.
  let reference = steps[0]!
  for (let halvings = 0; halvings < MAX_HALVINGS; halvings += 1) {
    const lower = await step(steps.at(-1)!.askedPerS / 2)
    steps.push(lower)
    // At ease: halving no longer cut the p99 much (on a machine shared with other work it may even rise).
    const eased = lower.p99Ms > (1 - EASE_CUT) * reference.p99Ms
    if (carried(lower, lower.p99Ms) && lower.p99Ms < reference.p99Ms) reference = lower
    if (eased) break
  }
  const isCarried = (measured: CapacityStep): boolean => carried(measured, reference.p99Ms)
  const rates = (ok: boolean): number[] =>
    steps.filter((measured) => isCarried(measured) === ok).map((measured) => measured.askedPerS)
  let low = Math.max(0, ...rates(true))
  const above = rates(false).filter((rate) => rate > low)
  let high: number | null = above.length > 0 ? Math.min(...above) : null
  const next = async (rate: number): Promise<void> => {
    const measured = await step(rate)
    steps.push(measured)
    if (isCarried(measured)) low = rate
    else high = rate
  }
  while (low > 0 && high === null && low < ceilingPerS) await next(Math.min(ceilingPerS, low * 2))
  for (
    let bisections = 0;
    low > 0 && high !== null && high / low > BRACKET && bisections < MAX_BISECTIONS;
    bisections += 1
  )
    await next(Math.round(Math.sqrt(low * high)))
  return {
    perS: low,
    notCarriedPerS: high,
    referencePerS: reference.askedPerS,
    referenceP99Ms: reference.p99Ms,
    kneeMs: kneeMs(reference.p99Ms),
    steps: steps.map((measured) => ({ ...measured, carried: isCarried(measured) })),
  }
}
