import { EmulatorRestError } from './errors.js'
import type { EmulatorApiVersion } from './types.js'

type Row = Record<string, unknown>

/** The docs' example answers (src/catalogue/answers.generated.ts), by API version and lower-cased method name. */
export interface DocAnswers {
  /** The example `result` of each seeded method (each list cut to its first element). */
  readonly examples: Readonly<Record<EmulatorApiVersion, ReadonlyMap<string, unknown>>>
  /** The error each page shows for an id that does not exist: `[code, message]`, `{id}` standing for the id. */
  readonly notFound: Readonly<Record<EmulatorApiVersion, ReadonlyMap<string, readonly [string, string]>>>
}

const NONE: DocAnswers = {
  examples: { v2: new Map(), v3: new Map() },
  notFound: { v2: new Map(), v3: new Map() },
}

const lowerKeys = <T>(table: Readonly<Record<string, T>>): Map<string, T> =>
  new Map(Object.entries(table).map(([name, value]) => [name.toLowerCase(), value]))

let loaded: DocAnswers | undefined
let loading: Promise<DocAnswers> | undefined

/**
 * The docs' answers, imported on first use only (as the catalogue is): a test that calls only the methods it defines
 * never loads them. Every handler that makes rows awaits this first.
 */
export function loadAnswers(): Promise<DocAnswers> {
  loading ??= import('../catalogue/answers.generated.js').then((table) => {
    loaded = {
      examples: { v2: lowerKeys(table.V2_EXAMPLES), v3: lowerKeys(table.V3_EXAMPLES) },
      notFound: { v2: lowerKeys(table.V2_NOT_FOUND), v3: lowerKeys(table.V3_NOT_FOUND) },
    }
    return loaded
  })
  return loading
}

/** The answers once {@link loadAnswers} resolved; none before (a row made then has only the emulator's own keys). */
export function loadedAnswers(): DocAnswers {
  return loaded ?? NONE
}

function isRow(value: unknown): value is Row {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** Where an example answer keeps its objects: under a wrapper (`{ item }`, `{ items }`, `{ tasks }`) or bare. */
export interface ExampleShape {
  /** The wrapper's key; undefined for a bare object or list. */
  readonly wrapper: string | undefined
  /** A list of objects rather than one. */
  readonly list: boolean
  /** A list written as an object keyed by id (`imbot.bot.list`: `{ "39": {...} }`). */
  readonly keyed?: boolean
  /** The objects it shows. */
  readonly rows: readonly Row[]
}

/** The shape of an example `result`, or undefined when it holds no object (`true`, a number, a list of ids). */
export function shapeOf(example: unknown): ExampleShape | undefined {
  if (Array.isArray(example)) {
    const rows = example.filter(isRow)
    return rows.length > 0 ? { wrapper: undefined, list: true, rows } : undefined
  }
  if (!isRow(example)) return undefined
  const entries = Object.entries(example)
  if (entries.length > 0 && entries.every(([key, value]) => /^\d+$/.test(key) && isRow(value)))
    return { wrapper: undefined, list: true, keyed: true, rows: entries.map(([, value]) => value as Row) }
  const [only] = entries
  if (entries.length === 1 && only !== undefined) {
    const [key, value] = only
    if (Array.isArray(value) && value.some(isRow))
      return { wrapper: key, list: true, rows: value.filter(isRow) }
    if (isRow(value)) return { wrapper: key, list: false, rows: [value] }
  }
  return { wrapper: undefined, list: false, rows: [example] }
}

/** The methods that read one entity's objects (`crm.deal.get`, `crm.deal.list`, `user.current`). */
const READS = /^(get|list|getlist|current)$/

/**
 * The seed object of `entity` (`crm.deal`) on `version`: every key its reads' examples show, a `get`'s values
 * winning over a list row's; undefined when the docs seed none.
 */
export function seedRow(answers: DocAnswers, version: EmulatorApiVersion, entity: string): Row | undefined {
  let cache = seeds.get(answers)
  if (cache === undefined) {
    cache = new Map()
    seeds.set(answers, cache)
  }
  const key = `${version} ${entity.toLowerCase()}`
  if (!cache.has(key)) cache.set(key, mergedSeed(answers, version, entity))
  return cache.get(key)
}

/** Seed rows made so far, per answers table and `version entity`: a list of 1 000 rows makes each row from it. */
const seeds = new WeakMap<DocAnswers, Map<string, Row | undefined>>()

function mergedSeed(answers: DocAnswers, version: EmulatorApiVersion, entity: string): Row | undefined {
  const prefix = `${entity.toLowerCase()}.`
  let seed: Row | undefined
  for (const [name, example] of answers.examples[version]) {
    const last = name.slice(prefix.length)
    if (!name.startsWith(prefix) || !READS.test(last)) continue
    const shape = shapeOf(example)
    const row = shape?.rows[0]
    if (row === undefined) continue
    seed = shape?.list ? { ...row, ...seed } : { ...seed, ...row }
  }
  return seed
}

/** `own` (the emulator's fields of a built-in object) over the seed of `entity`: every documented key, ours winning. */
export function seeded(version: EmulatorApiVersion, entity: string, own: Row): Row {
  return { ...seedRow(loadedAnswers(), version, entity), ...own }
}

/**
 * `seed` as the object with id `id`, under the key and in the type the example writes it (`"ID": "410"`,
 * `"id": 410`); without either, as the API version does (`ID` a string on v2, `id` a number on v3).
 */
export function withSeedId(seed: Row, id: number, version: EmulatorApiVersion): Row {
  if ('ID' in seed) return { ...seed, ID: typeof seed.ID === 'number' ? id : String(id) }
  if ('id' in seed) return { ...seed, id: typeof seed.id === 'string' ? String(id) : id }
  return version === 'v2' ? { ...seed, ID: String(id) } : { ...seed, id }
}

/**
 * The error `method` answers for the unknown `id`: its page's, else that of its entity's `get` page (the same
 * lookup); undefined when the docs show neither.
 */
export function documentedNotFound(
  answers: DocAnswers,
  version: EmulatorApiVersion,
  method: string,
  id: number,
): EmulatorRestError | undefined {
  const lower = method.toLowerCase()
  const found =
    answers.notFound[version].get(lower) ??
    answers.notFound[version].get(`${lower.slice(0, lower.lastIndexOf('.'))}.get`)
  if (found === undefined) return undefined
  const [code, message] = found
  return new EmulatorRestError(code, message.replaceAll('{id}', String(id)))
}
