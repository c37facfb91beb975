import { type PackedMethods, unpackMethod } from '../catalogue/packed-method.js'
import type { EmulatorApiVersion } from './types.js'

/** One documented REST method, as the emulator reads it from the generated catalogue. */
export interface CatalogueMethod {
  /** The name as the documentation spells it (`disk.storage.getList`). */
  readonly name: string
  readonly version: EmulatorApiVersion
  /** Scopes that grant it (`crm`; `user,user_brief,user_basic`). */
  readonly scopes: readonly string[]
  /** True when it changes data (the catalogue's `w`). */
  readonly writes: boolean
  /** Required parameters; a dotted name is a field of an object parameter (`fields.COMPANY_ID`). */
  readonly required: readonly string[]
}

/** The catalogue by API version and lower-cased name (the portal ignores the case of method names). */
export type CatalogueIndex = Readonly<Record<EmulatorApiVersion, ReadonlyMap<string, CatalogueMethod>>>

function unpack(name: string, version: EmulatorApiVersion, packed: string): CatalogueMethod {
  const { scopeList, writes, required } = unpackMethod(packed)
  return { name, version, scopes: scopeList === '' ? [] : scopeList.split(','), writes, required }
}

/** The methods of one packed table, keyed by lower-cased name, those `keep` accepts only. */
function entries(
  version: EmulatorApiVersion,
  table: PackedMethods,
  keep: (name: string) => boolean = () => true,
): Array<[string, CatalogueMethod]> {
  return Object.entries(table)
    .filter(([name]) => keep(name))
    .map(([name, packed]) => [name.toLowerCase(), unpack(name, version, packed)])
}

/**
 * protocol.md 4: "only migrated methods (tasks, note/knowledge base, mail, humanresources, main.eventlog,
 * timeman.record, call.followup) exist" on v3. The catalogue files most of their REST 3.0 pages with the v2 methods
 * (`tasks.task.field.list`), so those answer on v3 too; any other v2 method is not found there, as on the portal.
 */
const V3_MODULES = /^(tasks|note|mail|humanresources|main\.eventlog|timeman\.record|call\.followup)\./i

let loading: Promise<CatalogueIndex> | undefined

/**
 * The catalogue, imported on first use only: `import 'portal-oauth/testing'` stays as fast as without it, and a test
 * that calls only the methods it defines never loads it.
 */
export function loadCatalogue(): Promise<CatalogueIndex> {
  loading ??= import('../catalogue/methods.generated.js').then((table) => ({
    v2: new Map(entries('v2', table.V2_METHODS)),
    // The v3 pages win over a v2 page of the same name.
    v3: new Map([
      ...entries('v3', table.V2_METHODS, (name) => V3_MODULES.test(name)),
      ...entries('v3', table.V3_METHODS),
    ]),
  }))
  return loading
}
