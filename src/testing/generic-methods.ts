import { type DocAnswers, documentedNotFound, loadAnswers, seedRow, shapeOf, withSeedId } from './answers.js'
import { type CatalogueMethod, loadCatalogue } from './catalogue.js'
import { EmulatorRestError } from './errors.js'
import { v2ListPage, v3ListRows } from './list-answers.js'
import { EmulatorListPage } from './list-page.js'
import { anyId, FixtureTable, parseV2Filter, parseV3Filter, toId, v3ValidationError } from './lists.js'
import type { MethodDefinition, MethodFallback } from './method-definition.js'
import type { EmulatorApiVersion, EmulatorMethodHandler } from './types.js'

type Row = Record<string, unknown>

function isRecord(value: unknown): value is Row {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** The rows of one entity (`crm.deal`), shared by every method of it. */
export interface EntityStore {
  readonly table: FixtureTable<Row>
  /** The row with its id under the key the entity uses (`ID: '7'` or `id: 7`). */
  withId(fields: Row, id: number): Row
}

/** Old-style v2 entities answer their fields as strings, `"ID": "1"` (protocol.md 3.1); v3 items have `id: 1`. */
const ID_KEY: Record<EmulatorApiVersion, EntityStore['withId']> = {
  v2: (fields, id) => ({ ...fields, ID: String(id) }),
  v3: (fields, id) => ({ ...fields, id }),
}

/** How many objects an entity the docs seed starts with (their list examples show two or three). */
export const SEEDED_ROWS = 3

/**
 * One store per entity and API version (the method name without its last segment): a built-in fixture table where
 * there is one, so `crm.deal.get` finds what the built-in `crm.deal.add` stored; otherwise a table made on first
 * use, of {@link SEEDED_ROWS} objects made from the docs' example answers of the entity's reads (every key they
 * show), or empty where the docs seed none.
 */
export class EntityStores {
  readonly #stores = new Map<string, EntityStore>()

  /** Share a built-in method's table with the catalogue's methods of `entity` on `version`. */
  adopt(
    entity: string,
    version: EmulatorApiVersion,
    table: FixtureTable<Row>,
    withId: EntityStore['withId'],
  ): void {
    this.#stores.set(`${version} ${entity.toLowerCase()}`, { table, withId })
  }

  /** The store of `entity` on `version`, made on first use. */
  of(entity: string, version: EmulatorApiVersion, answers: DocAnswers): EntityStore {
    const key = `${version} ${entity.toLowerCase()}`
    let store = this.#stores.get(key)
    if (!store) {
      const seed = seedRow(answers, version, entity)
      store =
        seed === undefined
          ? { table: new FixtureTable<Row>(0, () => ({})), withId: ID_KEY[version] }
          : {
              table: new FixtureTable<Row>(SEEDED_ROWS, (id) => withSeedId(seed, id, version)),
              withId: (fields, id) => withSeedId({ ...seed, ...fields }, id, version),
            }
      this.#stores.set(key, store)
    }
    return store
  }
}

/** What a catalogue method does, from the last segment of its name and its read/write flag. */
export type GenericKind = 'add' | 'get' | 'list' | 'update' | 'delete' | 'fields' | 'write' | 'read'

const KINDS: Readonly<Record<string, GenericKind>> = {
  add: 'add',
  get: 'get',
  current: 'get',
  list: 'list',
  getlist: 'list',
  update: 'update',
  delete: 'delete',
  fields: 'fields',
  getfields: 'fields',
}

/** The kind of a catalogue method. */
export function genericKind(method: CatalogueMethod): GenericKind {
  const last = method.name.slice(method.name.lastIndexOf('.') + 1).toLowerCase()
  return KINDS[last] ?? (method.writes ? 'write' : 'read')
}

function isEmpty(value: unknown): boolean {
  if (value === undefined || value === null || value === '') return true
  if (Array.isArray(value)) return value.length === 0
  return isRecord(value) && Object.keys(value).length === 0
}

/** A parameter by name; v2 ignores its case (most v2 methods take `ID` and `id` alike), v3 does not. */
function param(params: Row, name: string, version: EmulatorApiVersion): unknown {
  if (name in params || version === 'v3') return params[name]
  const lower = name.toLowerCase()
  const key = Object.keys(params).find((candidate) => candidate.toLowerCase() === lower)
  return key === undefined ? undefined : params[key]
}

/** The value of a required parameter; `fields.COMPANY_ID` is a field of the `fields` object. */
function requiredValue(params: Row, path: string, version: EmulatorApiVersion): unknown {
  let node: unknown = params
  for (const segment of path.split('.')) {
    if (!isRecord(node)) return undefined
    node = param(node, segment, version)
  }
  return node
}

/**
 * Refuses a call that lacks a required parameter of the catalogue, naming it: the check every handler makes first,
 * as the portal does. `A/B` is a group of which one must be given ("At least one of IBLOCK_ID or IBLOCK_CODE").
 */
export function checkRequired(method: CatalogueMethod, params: Row, version: EmulatorApiVersion): void {
  for (const required of method.required) {
    const group = required.split('/')
    if (group.every((name) => isEmpty(requiredValue(params, name, version))))
      throw missingParameter(group.join(' or '), version)
  }
}

function missingParameter(name: string, version: EmulatorApiVersion): EmulatorRestError {
  // v2: protocol.md 3.2 "plus optional extra keys (e.g. "argument" for ERROR_ARGUMENT)" and 3.3 (ERROR_ARGUMENT,
  // 400); the text is the portal's own for an argument that is null or empty (the vendor docs' error tables).
  if (version === 'v2') {
    return new EmulatorRestError('ERROR_ARGUMENT', `Argument '${name}' is null or empty`, 400, {
      argument: name,
    })
  }
  // v3: protocol.md 4, "validation": [{"field": "id", "message": "Required field `id` is not specified"}].
  return v3ValidationError(name, `Required field \`${name}\` is not specified`)
}

/**
 * The error for an unknown id: the one the method's page shows (or its entity's `get` page: crm.item.get's
 * `NOT_FOUND` "Element not found", crm.deal.get's "Not found" without a code, v3 "Record with ID = `7` not found"),
 * else protocol.md 3.3 (ERROR_NOT_FOUND, 400) with the disk pages' text, and protocol.md 4 on v3.
 */
function notFound(
  answers: DocAnswers,
  method: string,
  id: number,
  version: EmulatorApiVersion,
): EmulatorRestError {
  const documented = documentedNotFound(answers, version, method, id)
  if (documented) return documented
  return version === 'v2'
    ? new EmulatorRestError('ERROR_NOT_FOUND', `Could not find entity with id \`${id}\``)
    : new EmulatorRestError(
        'BITRIX_REST_V3_EXCEPTION_ENTITYNOTFOUNDEXCEPTION',
        `Record with ID = \`${id}\` not found`,
      )
}

/** The fields to store: the `fields` object when there is one, otherwise every parameter but the id. */
function fieldsOf(params: Row, version: EmulatorApiVersion): Row {
  const fields = param(params, 'fields', version)
  if (isRecord(fields)) return fields
  const rest: Row = {}
  for (const [key, value] of Object.entries(params)) if (key.toLowerCase() !== 'id') rest[key] = value
  return rest
}

/** A list as an object keyed by each row's id, as `imbot.bot.list` answers. */
function keyedById(rows: unknown): Row {
  const list = Array.isArray(rows) ? rows.filter(isRecord) : []
  return Object.fromEntries(list.map((row) => [String(row.ID ?? row.id), row]))
}

/** v3 `filter` conditions on `id` (the only field the emulator filters by); the others are ignored. */
function v3IdConditions(filter: unknown): unknown {
  return Array.isArray(filter)
    ? filter.filter((condition) => Array.isArray(condition) && condition[0] === 'id')
    : filter
}

/**
 * The generic answer of a documented method no test defined: a missing required parameter is refused naming it;
 * then, on the entity's store, `add` stores the fields and answers the new id, `get` the item (or the page's
 * not-found error), `list`/`getList` a page of items, `update` and `delete` change the store and answer true,
 * `fields` the docs' example description (`{}` without one); any other method answers true when it writes, `{}`
 * when it reads. Objects are shaped as the method's example answer shows them (`{ item }`, `{ tasks: [...] }`, bare);
 * v3 wraps them as the portal's v3 does (protocol.md 4): `{ item }`, `{ items }`, `{ result: true }`.
 */
export function genericHandler(method: CatalogueMethod, stores: EntityStores): EmulatorMethodHandler {
  const kind = genericKind(method)
  const entity = method.name.slice(0, method.name.lastIndexOf('.'))
  const lower = method.name.toLowerCase()
  return async (params, ctx) => {
    const { version } = ctx
    checkRequired(method, params, version)
    const answers = await loadAnswers()
    const example = answers.examples[version].get(lower)
    const shape = shapeOf(example)
    const v3 = version === 'v3'
    const done = v3 ? { result: true } : true
    const idValue = param(params, 'id', version)
    const hasId = !isEmpty(idValue)
    const store = stores.of(entity, version, answers)
    const one = (row: Row) => (shape?.wrapper ? { [shape.wrapper]: row } : v3 ? { item: row } : row)
    const many = () => {
      if (!v3) {
        const page = v2ListPage(
          store.table,
          params,
          parseV2Filter(params.filter ?? params.FILTER),
          shape?.wrapper,
        )
        return shape?.keyed ? new EmulatorListPage(keyedById(page.result), page.nav) : page
      }
      const constraint = parseV3Filter(v3IdConditions(params.filter), ['id'])
      return { [shape?.wrapper ?? 'items']: v3ListRows(store.table, params, constraint) }
    }
    switch (kind) {
      case 'add': {
        const item = store.table.add((id) => store.withId(fieldsOf(params, version), id))
        // `*.add` answers the new id as an integer on v2, the new item on v3 (protocol.md 4: "created id nested").
        return v3 ? { item } : store.table.size
      }
      case 'get': {
        if (!hasId) {
          // A get of no id (`user.current`, `placement.get`, `lists.get` by type): what its example shows.
          if (shape === undefined) return {}
          if (shape.list) return many()
          const first = store.table.query(anyId(), false, 0, 1).rows[0]
          return first === undefined ? {} : one(first)
        }
        const id = toId(idValue)
        const item = store.table.get(id)
        if (!item) throw notFound(answers, method.name, id, version)
        // A get whose example is a list (`sonet_group.get`) answers the one object as a list.
        if (!shape?.list) return one(item)
        return shape.wrapper ? { [shape.wrapper]: [item] } : v3 ? { items: [item] } : [item]
      }
      case 'list':
        return many()
      case 'update': {
        if (!hasId) return done
        const id = toId(idValue)
        const fields = fieldsOf(params, version)
        if (!store.table.update(id, (row) => store.withId({ ...row, ...fields }, id)))
          throw notFound(answers, method.name, id, version)
        return done
      }
      case 'delete': {
        if (!hasId) return done
        const id = toId(idValue)
        if (!store.table.delete(id)) throw notFound(answers, method.name, id, version)
        return done
      }
      case 'fields':
        return example ?? {}
      case 'read':
        return {}
      case 'write':
        return done
    }
  }
}

/**
 * The registry's fallback: a documented method nobody defined answers generically, on the API version(s) the
 * catalogue lists it for. The catalogue is loaded on the first such call.
 */
export function catalogueFallback(stores: EntityStores): MethodFallback {
  const made = new Map<string, MethodDefinition>()
  return async (name, version) => {
    const key = `${version} ${name}`
    const known = made.get(key)
    if (known) return known
    const method = (await loadCatalogue())[version].get(name)
    if (!method) return undefined
    const definition = { name, handler: genericHandler(method, stores), versions: new Set([version]) }
    made.set(key, definition)
    return definition
  }
}
