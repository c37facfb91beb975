import { EmulatorRestError } from './errors.js'
import { EmulatorListPage } from './list-page.js'
import {
  DEFAULT_LIST_ROWS,
  FixtureTable,
  type IdConstraint,
  isV2OrderDesc,
  parseV2Filter,
  parseV2Start,
  parseV3Filter,
  selectFields,
  toId,
  V2_PAGE_SIZE,
  v3Invalid,
} from './lists.js'
import { phpDate } from './time.js'
import type {
  EmulatorApiVersion,
  EmulatorAppStatus,
  EmulatorMethodHandler,
  EmulatorMethodOptions,
  ListName,
} from './types.js'

/** A registered REST method. */
export interface MethodDefinition {
  /** Lower-cased name. */
  name: string
  handler: EmulatorMethodHandler
  versions: ReadonlySet<EmulatorApiVersion>
}

/** The REST methods the portal knows, per API version. */
export class MethodRegistry {
  readonly #methods = new Map<string, MethodDefinition>()

  /** Register or replace a method (name lower-cased); versions default to both. */
  define(name: string, handler: EmulatorMethodHandler, options?: EmulatorMethodOptions): void {
    const lower = name.toLowerCase()
    this.#methods.set(lower, { name: lower, handler, versions: new Set(options?.versions ?? ['v2', 'v3']) })
  }

  /** The method answering `name` on `version`, if any. */
  get(name: string, version: EmulatorApiVersion): MethodDefinition | undefined {
    const method = this.#methods.get(name.toLowerCase())
    return method?.versions.has(version) ? method : undefined
  }
}

/** What the built-in methods read from the emulator. */
export interface BuiltinDeps {
  now(): number
  settings(): { isAdmin: boolean; status: EmulatorAppStatus; clientId: string; scope: string }
  lists: Partial<Record<ListName, number>>
}

type Row = Record<string, unknown>

function record(value: unknown): Row {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Row) : {}
}

function rows(deps: BuiltinDeps, name: ListName): number {
  return deps.lists[name] ?? DEFAULT_LIST_ROWS
}

/** Row of `user.get` / `user.current`. */
export function userRow(id: number): Row {
  return {
    ID: String(id),
    ACTIVE: true,
    NAME: `User ${id}`,
    LAST_NAME: 'Emulated',
    EMAIL: `user${id}@example.test`,
    PERSONAL_GENDER: '',
    TIME_ZONE: '',
  }
}

function v2ListPage(
  table: FixtureTable<Row>,
  params: Row,
  constraint: IdConstraint,
  wrap?: string,
): EmulatorListPage {
  const paging = parseV2Start(params.start)
  const desc = isV2OrderDesc(params.order, params.sort)
  const page = table.query(constraint, desc, paging.offset, V2_PAGE_SIZE)
  const result = wrap === undefined ? page.rows : { [wrap]: page.rows }
  if (paging.noCount) return new EmulatorListPage(result, { total: 0 })
  const more = paging.offset + page.rows.length < page.total
  return new EmulatorListPage(
    result,
    more ? { next: paging.offset + V2_PAGE_SIZE, total: page.total } : { total: page.total },
  )
}

function v3Limit(value: unknown, fallback: number, max: number, what: string): number {
  if (value === undefined || value === null) return fallback
  const n = Number(value)
  if (!Number.isInteger(n) || n < 1 || n > max) {
    throw v3Invalid('INVALIDPAGINATIONEXCEPTION', `${what} must be an integer from 1 to ${max}`, what)
  }
  return n
}

function requireId(params: Row, field = 'id'): number {
  const value = params[field]
  if (value === undefined || value === null || value === '') {
    throw v3Invalid(
      'VALIDATION_REQUESTVALIDATIONEXCEPTION',
      `Required field \`${field}\` is not specified`,
      field,
    )
  }
  return toId(value)
}

/** Register the built-in methods and their list fixtures. */
export function registerBuiltins(registry: MethodRegistry, deps: BuiltinDeps): void {
  const v2 = { versions: ['v2'] as EmulatorApiVersion[] }
  const v3 = { versions: ['v3'] as EmulatorApiVersion[] }
  const contacts = new FixtureTable<Row>(rows(deps, 'crm.contact.list'), (id) => ({
    ID: String(id),
    NAME: `Contact ${id}`,
    LAST_NAME: 'Emulated',
    TYPE_ID: 'CLIENT',
  }))
  const deals = new FixtureTable<Row>(rows(deps, 'crm.deal.list'), (id) => ({
    ID: String(id),
    TITLE: `Deal ${id}`,
    STAGE_ID: 'NEW',
    OPPORTUNITY: `${id * 100}.00`,
    CURRENCY_ID: 'USD',
    CONTACT_ID: String(id),
    ASSIGNED_BY_ID: '1',
  }))
  const users = new FixtureTable<Row>(rows(deps, 'user.get'), userRow)
  const items = new FixtureTable<Row>(rows(deps, 'crm.item.list'), (id) => ({ id, title: `Item ${id}` }))
  const tasks = new FixtureTable<Row>(rows(deps, 'tasks.task.list'), (id) => ({ id, title: `Task ${id}` }))
  const events = new FixtureTable<Row>(rows(deps, 'main.eventlog.tail'), (id) => ({
    id,
    auditTypeId: 'EMULATED_EVENT',
  }))

  registry.define(
    'profile',
    (_params, ctx) => {
      const { isAdmin } = deps.settings()
      return {
        ID: String(ctx.userId),
        ADMIN: isAdmin,
        NAME: `User ${ctx.userId}`,
        LAST_NAME: 'Emulated',
        PERSONAL_GENDER: '',
        TIME_ZONE: '',
      }
    },
    v2,
  )

  registry.define(
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

  registry.define('server.time', () => phpDate(deps.now()), v2)

  registry.define('user.current', (_params, ctx) => userRow(ctx.userId), v2)

  registry.define(
    'user.get',
    (params) => {
      const filter =
        params.FILTER ?? params.filter ?? (params.ID === undefined ? undefined : { ID: params.ID })
      return v2ListPage(users, params, parseV2Filter(filter))
    },
    v2,
  )

  registry.define(
    'crm.contact.list',
    (params) => v2ListPage(contacts, params, parseV2Filter(params.filter)),
    v2,
  )

  // `*.add` answers the new id as an integer, as the portal does.
  registry.define(
    'crm.contact.add',
    (params) => toId(contacts.add((id) => ({ ...record(params.fields), ID: String(id) })).ID),
    v2,
  )

  registry.define('crm.deal.list', (params) => v2ListPage(deals, params, parseV2Filter(params.filter)), v2)

  registry.define(
    'crm.deal.add',
    (params) => toId(deals.add((id) => ({ ...record(params.fields), ID: String(id) })).ID),
    v2,
  )

  registry.define(
    'crm.item.list',
    (params) => v2ListPage(items, params, parseV2Filter(params.filter), 'items'),
    v2,
  )

  registry.define(
    'crm.item.add',
    (params) => {
      const fields = record(params.fields)
      const item = items.add((id) => ({ title: '', ...fields, id }))
      return { item }
    },
    v2,
  )

  registry.define(
    'crm.item.get',
    (params) => {
      const item = items.get(toId(params.id))
      if (!item) throw new EmulatorRestError('NOT_FOUND', 'Element not found')
      return { item }
    },
    v2,
  )

  registry.define(
    'crm.item.update',
    (params) => {
      const fields = record(params.fields)
      const item = items.update(toId(params.id), (row) => ({ ...row, ...fields, id: row.id }))
      if (!item) throw new EmulatorRestError('NOT_FOUND', 'Element not found')
      return { item }
    },
    v2,
  )

  registry.define(
    'tasks.task.get',
    (params) => {
      const id = requireId(params)
      const item = tasks.get(id)
      if (!item) {
        throw new EmulatorRestError(
          'BITRIX_REST_V3_EXCEPTION_ENTITYNOTFOUNDEXCEPTION',
          `Task ${id} not found`,
        )
      }
      return { item: selectFields(item, params.select) }
    },
    v3,
  )

  registry.define(
    'tasks.task.add',
    (params) => {
      const fields = record(params.fields)
      if (typeof fields.title !== 'string' || fields.title === '') {
        throw v3Invalid(
          'VALIDATION_REQUESTVALIDATIONEXCEPTION',
          'Required field `title` is not specified',
          'title',
        )
      }
      const item = tasks.add((id) => ({ ...fields, id }))
      return { item: { id: item.id } }
    },
    v3,
  )

  registry.define(
    'tasks.task.list',
    (params) => {
      const constraint = parseV3Filter(params.filter, ['id', 'title'])
      const pagination = record(params.pagination)
      const limit = v3Limit(pagination.limit, 50, 1000, 'limit')
      const page = v3Limit(pagination.page, 1, Number.MAX_SAFE_INTEGER, 'page')
      const offset =
        pagination.offset !== undefined ? Math.max(0, toId(pagination.offset)) : (page - 1) * limit
      const desc = isV2OrderDesc(params.order)
      const found = tasks.query(constraint, desc, offset, limit)
      return { items: found.rows.map((row) => selectFields(row, params.select)) }
    },
    v3,
  )

  registry.define(
    'main.eventlog.tail',
    (params) => {
      const cursor = record(params.cursor)
      const field = cursor.field ?? 'id'
      if (field !== 'id')
        throw v3Invalid('VALIDATION_REQUESTVALIDATIONEXCEPTION', 'cursor.field must be `id`', 'cursor')
      const filter = params.filter
      if (
        Array.isArray(filter) &&
        filter.some((condition) => Array.isArray(condition) && condition[0] === field)
      ) {
        throw v3Invalid(
          'VALIDATION_REQUESTVALIDATIONEXCEPTION',
          'The cursor field may not appear in filter',
          'filter',
        )
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
