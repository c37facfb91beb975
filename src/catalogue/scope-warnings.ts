import type { LoggerInterface } from '../logger/logger.js'
import type { ApiVersion } from '../types/api-version.js'
import type { MethodFacts, MethodTable } from './method-table.js'

/** Scopes every application has: methods the documentation lists under them never warn. */
const ALWAYS_GRANTED = 'basic'

/**
 * A pair's `scope` that names no scope but the application as a whole (seen in OAuth answers of older or local
 * applications): nothing is checked against it.
 */
const WHOLE_APPLICATION = 'app'

/**
 * Scope names the documentation uses that the portal grants under another code: the REST 3.0 task pages say
 * `tasks` (a deprecated scope; their own access errors and the scope list say `task`), the workgroup pages say
 * `sonet` where the scope list says `sonet_group, socialnetwork`.
 */
const GRANTED_ALSO_BY: ReadonlyMap<string, readonly string[]> = new Map([
  ['tasks', ['task']],
  ['sonet', ['sonet_group', 'socialnetwork']],
  ['socialnetwork', ['sonet_group']],
])

/** How many methods, per version, the memo of methods that pass a scope holds before it starts over. */
const MAX_CHECKED_METHODS = 4096

/** How many scope strings the process keeps the facts of before it starts over (a fleet's portals share a few). */
const MAX_SCOPES = 256

/** What a pair's scope string lets through, the same for every instance whose pair has it. */
interface ScopeFacts {
  /** Lower-case scopes of the pair; `null` when there is nothing to check against. */
  granted: ReadonlySet<string> | null
  /** Methods, per version, that need no warning under this scope: each call would find the same (CPU per call). */
  passed: Record<ApiVersion, Set<string>>
}

/** The facts of each scope string seen, shared by the instances of the process: a held client keeps none of its own. */
const scopeFacts = new Map<string, ScopeFacts>()

function factsOf(pairScope: string): ScopeFacts {
  let facts = scopeFacts.get(pairScope)
  if (facts) return facts
  // Scope strings an application makes up would grow the map without end.
  if (scopeFacts.size >= MAX_SCOPES) scopeFacts.clear()
  // Comma-separated; event pages of the documentation say space-separated.
  const scopes = pairScope
    .toLowerCase()
    .split(/[\s,]+/)
    .filter((scope) => scope !== '')
  facts = {
    granted: scopes.length === 0 || scopes.includes(WHOLE_APPLICATION) ? null : new Set(scopes),
    passed: { v2: new Set(), v3: new Set() },
  }
  scopeFacts.set(pairScope, facts)
  return facts
}

/**
 * The scope check of one client instance: a call to a documented method whose scopes the pair's `scope` does not
 * list logs one warning, once per instance and missing scope (the fix is per scope: add it to the application; one
 * line per method would repeat it for every method of that scope), again after the pair's scope changed. It never
 * blocks the call: the portal decides. Unknown methods and a pair without a scope are not checked.
 */
export class ScopeWarnings {
  readonly #className: string
  /** The pair's scope string {@link #facts} were read from. */
  #pairScope = ''
  #facts: ScopeFacts | null = null
  /** Scope lists (as the catalogue writes them) already warned about; made with the first warning. */
  #warned: Set<string> | null = null

  constructor(className: string) {
    this.#className = className
  }

  /** Checks `method` and a batch's `commands` against `pairScope`. */
  check(
    table: MethodTable,
    apiVersion: ApiVersion,
    method: string,
    commands: readonly string[] | undefined,
    pairScope: string,
    logger: LoggerInterface,
  ): void {
    if (pairScope !== this.#pairScope || !this.#facts) {
      this.#pairScope = pairScope
      this.#facts = factsOf(pairScope)
      this.#warned = null
    }
    const facts = this.#facts
    if (!facts.granted) return
    this.#checkOne(table, apiVersion, method, facts, pairScope, logger)
    for (const command of commands ?? []) this.#checkOne(table, apiVersion, command, facts, pairScope, logger)
  }

  #checkOne(
    table: MethodTable,
    apiVersion: ApiVersion,
    method: string,
    scope: ScopeFacts,
    pairScope: string,
    logger: LoggerInterface,
  ): void {
    const passed = scope.passed[apiVersion]
    if (passed.has(method)) return
    const facts = table.lookup(apiVersion, method)
    if (!facts || isGranted(facts, scope.granted!)) {
      // Method names an application makes up at run time would grow the memo without end.
      if (passed.size >= MAX_CHECKED_METHODS) passed.clear()
      passed.add(method)
      return
    }
    if (this.#warned?.has(facts.scopeList)) return
    this.#warned ??= new Set()
    this.#warned.add(facts.scopeList)
    const needs =
      facts.scopes.length === 1 ? `scope ${facts.scopeList}` : `one of the scopes ${facts.scopeList}`
    logger.warn(
      `${this.#className}: ${apiVersion} ${method} needs ${needs} (method catalogue), which the pair's scope "${pairScope}" does not list; the call is sent and the portal decides (said once per scope)`,
      { apiVersion, method, scope: facts.scopeList, pairScope },
    )
  }
}

/** Whether the pair may call the method: a scope of it is granted, or its page names none (`event.bind`). */
function isGranted(facts: MethodFacts, granted: ReadonlySet<string>): boolean {
  if (facts.scopes.length === 0) return true
  return facts.scopes.some(
    (scope) =>
      scope === ALWAYS_GRANTED ||
      granted.has(scope) ||
      (GRANTED_ALSO_BY.get(scope)?.some((code) => granted.has(code)) ?? false),
  )
}
