import type { ApiVersion } from '../types/api-version.js'
import { type PackedMethods, unpackMethod } from './packed-method.js'

/** What the method catalogue says of one method at run time. */
export interface MethodFacts {
  /** The scopes the documentation lists for it, lower case; any one of them grants the method. */
  readonly scopes: readonly string[]
  /** The scopes as the documentation writes them (`user,user_brief,user_basic`), for messages and as a key. */
  readonly scopeList: string
  /** Whether it changes data (the catalogue's read/write flag). */
  readonly writes: boolean
}

/** The catalogue's runtime table: documented methods by name, per API version. */
export interface MethodTable {
  /**
   * The facts of `method` called on `apiVersion`, whatever the case of its name (the portal ignores case), or
   * `undefined` for a name the documentation lacks. A name is looked up in its own version's methods first, then in
   * the other's: the catalogue files a few REST 3.0 pages (`tasks.task.field.list`) with the v2 methods.
   */
  lookup(apiVersion: ApiVersion, method: string): MethodFacts | undefined
}

/**
 * The generated table, re-keyed at load time by lower-case name (the generated keys are the docs' spelling, a
 * call may spell a name in any case). Each entry is unpacked on its first lookup and kept.
 */
class PackedMethodTable implements MethodTable {
  readonly #packed: Record<ApiVersion, Map<string, string>>
  readonly #facts: Record<ApiVersion, Map<string, MethodFacts>> = { v2: new Map(), v3: new Map() }

  constructor(v2: PackedMethods, v3: PackedMethods) {
    this.#packed = { v2: byLowerCaseName(v2), v3: byLowerCaseName(v3) }
  }

  lookup(apiVersion: ApiVersion, method: string): MethodFacts | undefined {
    const name = method.toLowerCase()
    return this.#find(apiVersion, name) ?? this.#find(apiVersion === 'v2' ? 'v3' : 'v2', name)
  }

  #find(apiVersion: ApiVersion, name: string): MethodFacts | undefined {
    const known = this.#facts[apiVersion].get(name)
    if (known) return known
    const packed = this.#packed[apiVersion].get(name)
    if (packed === undefined) return undefined
    const { scopeList, writes } = unpackMethod(packed)
    const facts: MethodFacts = {
      scopes: scopeList === '' ? [] : scopeList.toLowerCase().split(','),
      scopeList,
      writes,
    }
    this.#facts[apiVersion].set(name, facts)
    return facts
  }
}

function byLowerCaseName(methods: PackedMethods): Map<string, string> {
  const map = new Map<string, string>()
  for (const name of Object.keys(methods)) map.set(name.toLowerCase(), methods[name]!)
  return map
}

/** A table that knows no method: what the client uses when the generated file cannot be loaded. */
const EMPTY_TABLE: MethodTable = { lookup: () => undefined }

let loaded: MethodTable | null = null
let loading: Promise<MethodTable> | null = null

/** The table once {@link loadMethodTable} has loaded it, `null` before. */
export function loadedMethodTable(): MethodTable | null {
  return loaded
}

/**
 * Loads the table, once per process: `import 'portal-oauth'` does not (the generated file is about 160 kB of
 * source), the first call that needs it does. A bundle that left the file out gets a table that knows no method:
 * the name rule then decides reads, and no scope is checked.
 */
export function loadMethodTable(): Promise<MethodTable> {
  loading ??= import('./methods.generated.js').then(
    (generated) => {
      loaded = new PackedMethodTable(generated.V2_METHODS, generated.V3_METHODS)
      return loaded
    },
    () => {
      loaded = EMPTY_TABLE
      return loaded
    },
  )
  return loading
}
