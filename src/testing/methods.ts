import { documentedNotFound, loadAnswers, loadedAnswers, seeded } from './answers.js'
import { loadCatalogue } from './catalogue.js'
import { EmulatorRestError } from './errors.js'
import { checkRequired, type EntityStores } from './generic-methods.js'
import { v2ListPage, v3Limit, v3ListRows } from './list-answers.js'
import { EmulatorListPage } from './list-page.js'
import {
  DEFAULT_LIST_ROWS,
  FixtureTable,
  parseV2Filter,
  parseV3Filter,
  selectFields,
  toId,
  v3ValidationError,
} from './lists.js'
import type { MethodDefinition, MethodFallback } from './method-definition.js'
import { phpDate } from './time.js'
import type {
  EmulatorApiVersion,
  EmulatorAppStatus,
  EmulatorMethodHandler,
  EmulatorMethodOptions,
  ListName,
} from './types.js'

/** The REST methods the portal knows, per API version: the defined ones first, then the fallback's. */
export class MethodRegistry {
  readonly #methods = new Map<string, MethodDefinition>()
  readonly #fallback: MethodFallback | undefined

  constructor(fallback?: MethodFallback) {
    this.#fallback = fallback
  }

  /** Register or replace a method (name lower-cased); versions default to both. */
  define(name: string, handler: EmulatorMethodHandler, options?: EmulatorMethodOptions): void {
    const lower = name.toLowerCase()
    this.#methods.set(lower, { name: lower, handler, versions: new Set(options?.versions ?? ['v2', 'v3']) })
  }

  /**
   * Register a built-in method: the catalogue's required parameters are checked first, as the generic answer and
   * the portal do (`crm.item.list` without `entityTypeId` is refused naming it), then `handler` answers.
   */
  defineBuiltin(name: string, handler: EmulatorMethodHandler, options?: EmulatorMethodOptions): void {
    const lower = name.toLowerCase()
    this.define(
      name,
      async (params, ctx) => {
        const method = (await loadCatalogue())[ctx.version].get(lower)
        if (method) checkRequired(method, params, ctx.version)
        // Its objects are made from the docs' examples (answers.ts): loaded before any is made.
        await loadAnswers()
        return handler(params, ctx)
      },
      options,
    )
  }

  /** The defined method answering `name` on `version`, if any. */
  get(name: string, version: EmulatorApiVersion): MethodDefinition | undefined {
    const method = this.#methods.get(name.toLowerCase())
    return method?.versions.has(version) ? method : undefined
  }

  /** The method answering `name` on `version`: a defined one wins over the fallback's. */
  async resolve(name: string, version: EmulatorApiVersion): Promise<MethodDefinition | undefined> {
    return this.get(name, version) ?? this.#fallback?.(name.toLowerCase(), version)
  }
}

/** What the built-in methods read from the emulator. */
export interface BuiltinDeps {
  now(): number
  settings(): { status: EmulatorAppStatus; clientId: string; scope: string }
  /** Whether the user administers the portal (`profile`'s `ADMIN`, `user.admin`). */
  isAdmin(userId: number): boolean
  lists: Partial<Record<ListName, number>>
  /** Where the built-in tables are shared with the catalogue's generic methods of the same entity. */
  stores: EntityStores
}

type Row = Record<string, unknown>

function record(value: unknown): Row {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Row) : {}
}

function rows(deps: BuiltinDeps, name: ListName): number {
  return deps.lists[name] ?? DEFAULT_LIST_ROWS
}

/** Row of `user.get` / `user.current`: the docs' example user with the emulator's own names. */
export function userRow(id: number): Row {
  return seeded('v2', 'user', {
    ID: String(id),
    ACTIVE: true,
    NAME: `User ${id}`,
    LAST_NAME: 'Emulated',
    EMAIL: `user${id}@example.test`,
    PERSONAL_GENDER: '',
    TIME_ZONE: '',
  })
}

/**
 * The error of a built-in method for an unknown id, as its docs page shows it (crm.item.get: `NOT_FOUND` "Element
 * not found"; crm.item.update, whose page shows none: crm.item.get's; v3 tasks.task.get: "Record with ID = `7` not
 * found"), else protocol.md 3.3's ERROR_NOT_FOUND.
 */
function unknownId(version: EmulatorApiVersion, method: string, id: number): EmulatorRestError {
  return (
    documentedNotFound(loadedAnswers(), version, method, id) ??
    new EmulatorRestError('ERROR_NOT_FOUND', `Could not find entity with id \`${id}\``)
  )
}

/**
 * A `crm.item.*` object as of the `entityTypeId` asked for: one table serves every type, and the docs' example
 * object is a lead's (`entityTypeId: 1`).
 */
function ofType(row: Row, params: Row): Row {
  const type = Number(params.entityTypeId)
  return Number.isInteger(type) ? { ...row, entityTypeId: type } : row
}

function requireId(params: Row, field = 'id'): number {
  const value = params[field]
  if (value === undefined || value === null || value === '') {
    throw v3ValidationError(field, `Required field \`${field}\` is not specified`)
  }
  return toId(value)
}

/** Register the built-in methods and their list fixtures. */
export function registerBuiltins(registry: MethodRegistry, deps: BuiltinDeps): void {
  const v2 = { versions: ['v2'] as EmulatorApiVersion[] }
  const v3 = { versions: ['v3'] as EmulatorApiVersion[] }
  // Every object is the docs' example of its entity (every key the examples show) under the emulator's own names
  // and ids, so that a list tells its rows apart; an added object is the example with the fields given.
  const contacts = new FixtureTable<Row>(rows(deps, 'crm.contact.list'), (id) =>
    seeded('v2', 'crm.contact', {
      ID: String(id),
      NAME: `Contact ${id}`,
      LAST_NAME: 'Emulated',
      TYPE_ID: 'CLIENT',
    }),
  )
  const deals = new FixtureTable<Row>(rows(deps, 'crm.deal.list'), (id) =>
    seeded('v2', 'crm.deal', {
      ID: String(id),
      TITLE: `Deal ${id}`,
      STAGE_ID: 'NEW',
      OPPORTUNITY: `${id * 100}.00`,
      CURRENCY_ID: 'USD',
      CONTACT_ID: String(id),
      ASSIGNED_BY_ID: '1',
    }),
  )
  const users = new FixtureTable<Row>(rows(deps, 'user.get'), userRow)
  const items = new FixtureTable<Row>(rows(deps, 'crm.item.list'), (id) =>
    seeded('v2', 'crm.item', { id, title: `Item ${id}` }),
  )
  const tasks = new FixtureTable<Row>(rows(deps, 'tasks.task.list'), (id) =>
    seeded('v3', 'tasks.task', { id, title: `Task ${id}` }),
  )
  const stringId = (entity: string) => (fields: Row, id: number) =>
    seeded('v2', entity, { ...fields, ID: String(id) })
  const numberId = (version: EmulatorApiVersion, entity: string) => (fields: Row, id: number) =>
    seeded(version, entity, { ...fields, id })
  deps.stores.adopt('crm.contact', 'v2', contacts, stringId('crm.contact'))
  deps.stores.adopt('crm.deal', 'v2', deals, stringId('crm.deal'))
  deps.stores.adopt('user', 'v2', users, stringId('user'))
  deps.stores.adopt('crm.item', 'v2', items, numberId('v2', 'crm.item'))
  deps.stores.adopt('tasks.task', 'v3', tasks, numberId('v3', 'tasks.task'))
  const events = new FixtureTable<Row>(rows(deps, 'main.eventlog.tail'), (id) => ({
    id,
    auditTypeId: 'EMULATED_EVENT',
  }))

  registry.defineBuiltin(
    'profile',
    (_params, ctx) => {
      return {
        ...(loadedAnswers().examples.v2.get('profile') as Row | undefined),
        ID: String(ctx.userId),
        ADMIN: deps.isAdmin(ctx.userId),
        NAME: `User ${ctx.userId}`,
        LAST_NAME: 'Emulated',
        PERSONAL_GENDER: '',
        TIME_ZONE: '',
      }
    },
    v2,
  )

  registry.defineBuiltin(
    'app.info',
    (_params, ctx) => {
      const { status, clientId, scope } = deps.settings()
      if (ctx.isWebhook) return { SCOPE: scope.split(','), LICENSE: 'en_ent250' }
      return {
        ID: 1,
        CODE: clientId,
        VERSION: 1,
        STATUS: status,
        INSTALLED: true,
        PAYMENT_EXPIRED: 'N',
        DAYS: null,
        LANGUAGE_ID: 'en',
        LICENSE: 'en_ent250',
        LICENSE_TYPE: 'ent250',
        LICENSE_FAMILY: 'ent',
      }
    },
    v2,
  )

  registry.defineBuiltin('user.admin', (_params, ctx) => deps.isAdmin(ctx.userId), v2)

  registry.defineBuiltin('server.time', () => phpDate(deps.now()), v2)

  registry.defineBuiltin('user.current', (_params, ctx) => userRow(ctx.userId), v2)

  registry.defineBuiltin(
    'user.get',
    (params) => {
      const filter =
        params.FILTER ?? params.filter ?? (params.ID === undefined ? undefined : { ID: params.ID })
      return v2ListPage(users, params, parseV2Filter(filter))
    },
    v2,
  )

  registry.defineBuiltin(
    'crm.contact.list',
    (params) => v2ListPage(contacts, params, parseV2Filter(params.filter)),
    v2,
  )

  // `*.add` answers the new id as an integer, as the portal does.
  registry.defineBuiltin(
    'crm.contact.add',
    (params) => toId(contacts.add((id) => stringId('crm.contact')(record(params.fields), id)).ID),
    v2,
  )

  registry.defineBuiltin(
    'crm.deal.list',
    (params) => v2ListPage(deals, params, parseV2Filter(params.filter)),
    v2,
  )

  registry.defineBuiltin(
    'crm.deal.add',
    (params) => toId(deals.add((id) => stringId('crm.deal')(record(params.fields), id)).ID),
    v2,
  )

  registry.defineBuiltin(
    'crm.item.list',
    (params) => {
      const page = v2ListPage(items, params, parseV2Filter(params.filter), 'items')
      const listed = record(page.result).items
      const rows = Array.isArray(listed) ? listed.map((row) => ofType(record(row), params)) : []
      return new EmulatorListPage({ items: rows }, page.nav)
    },
    v2,
  )

  registry.defineBuiltin(
    'crm.item.add',
    (params) => {
      const fields = record(params.fields)
      const item = items.add((id) => seeded('v2', 'crm.item', { title: '', ...fields, id }))
      return { item: ofType(item, params) }
    },
    v2,
  )

  registry.defineBuiltin(
    'crm.item.get',
    (params) => {
      const id = toId(params.id)
      const item = items.get(id)
      if (!item) throw unknownId('v2', 'crm.item.get', id)
      return { item: ofType(item, params) }
    },
    v2,
  )

  registry.defineBuiltin(
    'crm.item.update',
    (params) => {
      const fields = record(params.fields)
      const id = toId(params.id)
      const item = items.update(id, (row) => ({ ...row, ...fields, id: row.id }))
      if (!item) throw unknownId('v2', 'crm.item.update', id)
      return { item: ofType(item, params) }
    },
    v2,
  )

  registry.defineBuiltin(
    'tasks.task.get',
    (params) => {
      const id = requireId(params)
      const item = tasks.get(id)
      if (!item) throw unknownId('v3', 'tasks.task.get', id)
      return { item: selectFields(item, params.select) }
    },
    v3,
  )

  registry.defineBuiltin(
    'tasks.task.add',
    (params) => {
      const fields = record(params.fields)
      if (typeof fields.title !== 'string' || fields.title === '') {
        throw v3ValidationError('title', 'Required field `title` is not specified')
      }
      const item = tasks.add((id) => ({ ...fields, id }))
      return { item: { id: item.id } }
    },
    v3,
  )

  registry.defineBuiltin(
    'tasks.task.list',
    (params) => {
      const constraint = parseV3Filter(params.filter, ['id', 'title'])
      const rows = v3ListRows(tasks, params, constraint)
      return { items: rows.map((row) => selectFields(row, params.select)) }
    },
    v3,
  )

  registry.defineBuiltin(
    'main.eventlog.tail',
    (params) => {
      const cursor = record(params.cursor)
      const field = cursor.field ?? 'id'
      if (field !== 'id') throw v3ValidationError('cursor', 'cursor.field must be `id`')
      const filter = params.filter
      if (
        Array.isArray(filter) &&
        filter.some((condition) => Array.isArray(condition) && condition[0] === field)
      ) {
        throw v3ValidationError('filter', 'The cursor field may not appear in filter')
      }
      const constraint = parseV3Filter(filter, ['id', 'auditTypeId'])
      const desc = String(cursor.order ?? 'ASC').toUpperCase() === 'DESC'
      const value = toId(cursor.value ?? 0)
      if (desc) {
        if (value > 0) constraint.hi = Math.min(constraint.hi, value - 1)
      } else {
        constraint.lo = Math.max(constraint.lo, value + 1)
      }
      const limit = v3Limit(cursor.limit, 50, 1000, 'limit')
      const found = events.query(constraint, desc, 0, limit)
      return { items: found.rows.map((row) => selectFields(row, params.select)) }
    },
    v3,
  )
}
