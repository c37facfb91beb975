import type {
  EmulatorDelayFilter,
  EmulatorDropFilter,
  EmulatorOAuthFailure,
  EmulatorServerName,
  EmulatorTokenFailure,
  EmulatorTokenPatch,
} from './types.js'

/** What a request looks like to the fault rules. */
export interface FaultTarget {
  server: EmulatorServerName
  /** REST method, undefined for token endpoint and unknown paths. */
  method: string | undefined
}

interface Rule<Filter> {
  remaining: number
  filter: Filter
}

function matches(filter: { server?: EmulatorServerName; method?: string }, target: FaultTarget): boolean {
  if (filter.server !== undefined && filter.server !== target.server) return false
  if (filter.method !== undefined && filter.method.toLowerCase() !== target.method) return false
  return true
}

/** Forced failures: dropped connections, delayed answers and OAuth errors, each for a number of requests. */
export class FaultRules {
  #drops: Array<Rule<EmulatorDropFilter>> = []
  #delays: Array<Rule<EmulatorDelayFilter> & { ms: number }> = []
  #oauth: Array<Rule<EmulatorOAuthFailure>> = []
  #tokenFailures: Array<Rule<EmulatorTokenFailure>> = []
  #tokenPatches: Array<Rule<EmulatorTokenPatch>> = []
  #holds: Array<Rule<EmulatorDelayFilter>> = []
  /** Requests held now, each released by calling its function. */
  #held: Array<() => void> = []
  #heldWaiters: Array<{ count: number; resolve: () => void }> = []

  /** Drop the next `times` matching requests. */
  addDrop(times: number, filter: EmulatorDropFilter = {}): void {
    if (times > 0) this.#drops.push({ remaining: times, filter })
  }

  /** Delay the next `times` matching requests by `ms`. */
  addDelay(ms: number, times: number, filter: EmulatorDelayFilter = {}): void {
    if (times > 0) this.#delays.push({ remaining: times, filter, ms })
  }

  /** Answer the next `times` token requests with `failure`. */
  addOAuthFailure(failure: EmulatorOAuthFailure, times: number): void {
    if (times > 0) this.#oauth.push({ remaining: times, filter: failure })
  }

  /** Consume a drop rule for the request; returns when to drop it, or undefined. */
  takeDrop(target: FaultTarget): EmulatorDropFilter['after'] {
    const rule = this.#drops.find((candidate) => matches(candidate.filter, target))
    if (!rule) return undefined
    this.#drops = consume(this.#drops, rule)
    return rule.filter.after ?? 'body'
  }

  /** Consume a delay rule for the request; returns the extra ms (0 when none). */
  takeDelay(target: FaultTarget): number {
    const rule = this.#delays.find((candidate) => matches(candidate.filter, target))
    if (!rule) return 0
    this.#delays = consume(this.#delays, rule)
    return rule.ms
  }

  /** Answer the next `times` token requests with a raw failure. */
  addTokenFailure(failure: EmulatorTokenFailure, times: number): void {
    if (times > 0) this.#tokenFailures.push({ remaining: times, filter: failure })
  }

  /** Consume a raw token failure, if any. */
  takeTokenFailure(): EmulatorTokenFailure | undefined {
    const rule = this.#tokenFailures[0]
    if (!rule) return undefined
    this.#tokenFailures = consume(this.#tokenFailures, rule)
    return rule.filter
  }

  /** Patch the next `times` successful token answers. */
  addTokenPatch(patch: EmulatorTokenPatch, times: number): void {
    if (times > 0) this.#tokenPatches.push({ remaining: times, filter: patch })
  }

  /** Consume a token answer patch, if any. */
  takeTokenPatch(): EmulatorTokenPatch | undefined {
    const rule = this.#tokenPatches[0]
    if (!rule) return undefined
    this.#tokenPatches = consume(this.#tokenPatches, rule)
    return rule.filter
  }

  /** Hold the next `times` matching requests until {@link releaseHeld}. */
  addHold(times: number, filter: EmulatorDelayFilter = {}): void {
    if (times > 0) this.#holds.push({ remaining: times, filter })
  }

  /** Consume a hold rule for the request; resolves when released (or at once when no rule matches). */
  hold(target: FaultTarget, closing: AbortSignal): Promise<void> | undefined {
    const rule = this.#holds.find((candidate) => matches(candidate.filter, target))
    if (!rule) return undefined
    this.#holds = consume(this.#holds, rule)
    return new Promise<void>((resolve) => {
      const release = (): void => {
        closing.removeEventListener('abort', release)
        resolve()
      }
      closing.addEventListener('abort', release, { once: true })
      this.#held.push(release)
      for (const waiter of this.#heldWaiters.filter((candidate) => this.#held.length >= candidate.count)) {
        waiter.resolve()
      }
      this.#heldWaiters = this.#heldWaiters.filter((candidate) => this.#held.length < candidate.count)
    })
  }

  /** Resolves once `count` requests are held at the same time. */
  waitForHeld(count: number): Promise<void> {
    if (this.#held.length >= count) return Promise.resolve()
    return new Promise((resolve) => this.#heldWaiters.push({ count, resolve }))
  }

  /** Lets every held request go on and drops the hold rules not used yet. */
  releaseHeld(): void {
    const held = this.#held
    this.#held = []
    this.#holds = []
    for (const release of held) release()
  }

  /** Forgets every rule not used yet and lets held requests go on. */
  clear(): void {
    this.#drops = []
    this.#delays = []
    this.#oauth = []
    this.#tokenFailures = []
    this.#tokenPatches = []
    this.releaseHeld()
  }

  /** Consume a forced OAuth failure, if any. */
  takeOAuthFailure(): EmulatorOAuthFailure | undefined {
    const rule = this.#oauth[0]
    if (!rule) return undefined
    this.#oauth = consume(this.#oauth, rule)
    return rule.filter
  }
}

function consume<R extends { remaining: number }>(rules: R[], rule: R): R[] {
  rule.remaining -= 1
  return rule.remaining > 0 ? rules : rules.filter((candidate) => candidate !== rule)
}
