import type {
  EmulatorDelayFilter,
  EmulatorDropFilter,
  EmulatorOAuthFailure,
  EmulatorServerName,
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
