import { types } from 'node:util'
import { REDACTED, SECRET_KEY } from './secret-rules.js'

/** Data as a snapshot keeps it: what JSON can write, every string with its secrets replaced. */
export type SnapshotData = string | number | boolean | null | SnapshotData[] | { [key: string]: SnapshotData }

/** Replaces the known secrets in a text: the instance's secret registry. */
export interface TextRedactor {
  /** `text` with every known secret replaced. */
  redactText(text: string): string
}

/** What a publication says of a thrown value: its kind, code, message and HTTP status. */
export interface ErrorSummary {
  /** `AjaxError`, `RefreshTokenError`, `Error`, ... */
  name: string
  /** The error's `code` when it is a string, else `''`. */
  code: string
  /** The message; a value that is no `Error` is described as `Strange error: ...`. */
  message: string
  /** The error's `status` when it is a number. */
  status?: number
}

/** A value read: a leaf (`undefined` where a property held it), or an object and what was read of it. */
export type ReadNode = ReadLeaf | ReadObject

/** A primitive, a function's name or a marker (`[unreadable]`, `[circular]`, ...). */
export interface ReadLeaf {
  readonly kind: 'leaf'
  readonly data: SnapshotData | undefined
}

/** An object and its properties, each read once. */
export interface ReadObject {
  readonly kind: 'object'
  /** `instanceof Error`, asked once. */
  readonly isError: boolean
  readonly isArray: boolean
  /** By key (redacted): own properties, then those of prototypes that are not built in, then an error's own fields. */
  readonly properties: ReadonlyMap<string, ReadProperty>
  /** Its keys could not be listed (a Proxy whose trap threw). */
  readonly unreadable: boolean
}

/** One property read. */
export interface ReadProperty {
  readonly node: ReadNode
}

/** Deepest nesting read; deeper values are `[nested too deep]`. */
const MAX_DEPTH = 8
/** Properties (or items) read per object. */
const MAX_PROPERTIES = 64
/** Objects read per thrown value. */
const MAX_OBJECTS = 400
/** Prototypes looked at above an object. */
const MAX_PROTOTYPES = 8
/** Longest text kept. */
const MAX_TEXT = 2_000

const UNREADABLE = '[unreadable]'
const CIRCULAR = '[circular]'
const SEEN = '[seen]'
const TOO_DEEP = '[nested too deep]'
const TRUNCATED = '[truncated]'

/** What every error is read for, also where it comes from a built-in prototype (a `TypeError`'s `name`). */
const ERROR_KEYS = ['name', 'message', 'stack', 'code', 'status', 'description', 'cause', 'errors']
/** What a log line shows of an error. */
const LOGGED_ERROR_KEYS = ['name', 'message', 'code', 'status', 'description', 'cause', 'errors']
/** Prototypes of the language and the runtime: their accessors and methods are not the thrower's. */
const BUILT_IN_PROTOTYPES: ReadonlySet<unknown> = new Set(
  [
    Object,
    Function,
    Array,
    Error,
    EvalError,
    RangeError,
    ReferenceError,
    SyntaxError,
    TypeError,
    URIError,
    AggregateError,
    Date,
    RegExp,
    Map,
    Set,
    Promise,
    globalThis.DOMException,
  ].map((type) => type?.prototype),
)

/** `read()`, or `fallback` when it throws (a hostile getter or Proxy trap). */
function attempt<T, F>(read: () => T, fallback: F): T | F {
  try {
    return read()
  } catch {
    return fallback
  }
}

function leaf(data: SnapshotData | undefined): ReadLeaf {
  return { kind: 'leaf', data }
}

/** A sentinel for a read that threw. */
const THREW = Symbol('threw')

/**
 * Reads one thrown value: every property once, through getters and Proxies that throw, cycles and long chains, with
 * every string (keys included) redacted as it is read and the values under secret keys replaced.
 */
class Reader {
  /** Whether anything read held a secret. */
  heldSecret = false
  readonly #redactor: TextRedactor
  readonly #known: (value: object) => ThrownSnapshot | undefined
  /** Objects being read (their ancestors): met again, they are a cycle. */
  readonly #path = new Set<object>()
  /** Objects read already: met again, they are not read twice. */
  readonly #done = new Set<object>()
  #objects = 0

  constructor(redactor: TextRedactor, known: (value: object) => ThrownSnapshot | undefined) {
    this.#redactor = redactor
    this.#known = known
  }

  read(value: unknown, depth: number): ReadNode {
    switch (typeof value) {
      case 'string':
        return leaf(this.#text(value))
      case 'number':
        return leaf(Number.isFinite(value) ? value : String(value))
      case 'boolean':
        return leaf(value)
      case 'undefined':
        return leaf(undefined)
      case 'bigint':
        return leaf(String(value))
      case 'symbol':
        // String() of a Symbol is its description: no user code runs.
        return leaf(this.#text(String(value)))
      case 'function':
        return leaf(this.#text(`[function ${functionName(value)}]`))
    }
    if (value === null) return leaf(null)
    const object = value as object
    if (this.#path.has(object)) return leaf(CIRCULAR)
    if (this.#done.has(object)) return leaf(SEEN)
    const known = this.#known(object)
    if (known) {
      // Read before (the error a refresh failed with, now in a log line): the same snapshot, not a second read.
      if (known.heldSecret) this.heldSecret = true
      return known.node
    }
    if (depth > MAX_DEPTH) return leaf(TOO_DEEP)
    this.#objects += 1
    if (this.#objects > MAX_OBJECTS) return leaf(TRUNCATED)
    this.#path.add(object)
    try {
      return this.#readObject(object, depth)
    } finally {
      this.#path.delete(object)
      this.#done.add(object)
    }
  }

  #readObject(value: object, depth: number): ReadObject {
    const isError = attempt(() => value instanceof Error, false)
    const isArray = attempt(() => Array.isArray(value), false)
    const prototype = types.isProxy(value) ? null : attempt(() => Reflect.getPrototypeOf(value), null)
    const properties = new Map<string, ReadProperty>()
    /** Keys met, methods included: a key is read where it is nearest, as a property access would. */
    const met = new Set<string>()
    const ownKeys = attempt(() => Reflect.ownKeys(value), null)
    for (const key of ownKeys ?? []) if (typeof key === 'string') met.add(key)
    for (const key of ownKeys ?? []) {
      if (typeof key !== 'string' || (isArray && key === 'length')) continue
      if (properties.size >= MAX_PROPERTIES) break
      const descriptor = attempt(() => Reflect.getOwnPropertyDescriptor(value, key), undefined)
      const item = descriptor ? readDescriptor(descriptor, value) : THREW
      if (typeof item === 'function') continue
      properties.set(...this.#property(key, item, depth))
    }
    let layer = prototype
    for (let level = 0; layer && !BUILT_IN_PROTOTYPES.has(layer) && level < MAX_PROTOTYPES; level += 1) {
      const current: object = layer
      for (const key of attempt(() => Reflect.ownKeys(current), [])) {
        if (typeof key !== 'string') continue
        if (key === 'constructor' || met.has(key)) continue
        met.add(key)
        const descriptor = attempt(() => Reflect.getOwnPropertyDescriptor(current, key), undefined)
        if (!descriptor || (!('value' in descriptor) && !descriptor.get)) continue
        // A getter of the class runs on the value itself, as `value[key]` would run it.
        const item = readDescriptor(descriptor, value)
        if (typeof item === 'function') continue
        if (properties.size >= MAX_PROPERTIES) continue
        properties.set(...this.#property(key, item, depth))
      }
      // A Proxy in the prototype chain answers as its trap says at the time: nothing above it is looked at.
      if (types.isProxy(current)) break
      layer = attempt(() => Reflect.getPrototypeOf(current), null)
    }
    if (isError) {
      for (const key of ERROR_KEYS) {
        if (met.has(key)) continue
        const item = attempt(() => Reflect.get(value, key) as unknown, THREW)
        if (item === undefined || typeof item === 'function') continue
        properties.set(...this.#property(key, item, depth))
      }
    }
    return {
      kind: 'object',
      isError,
      isArray,
      properties,
      unreadable: ownKeys === null,
    }
  }

  #property(key: string, item: unknown, depth: number): [string, ReadProperty] {
    let node: ReadNode
    if (item === THREW) node = leaf(UNREADABLE)
    else if (SECRET_KEY.test(key) && item !== undefined && item !== null && item !== '') {
      this.heldSecret = true
      node = leaf(REDACTED)
    } else node = this.read(item, depth + 1)
    return [this.#text(key), { node }]
  }

  /** `text` redacted, then clipped (never the other way round: a clipped secret would no longer be found). */
  #text(text: string): string {
    const redacted = this.#redactor.redactText(text)
    if (redacted !== text) this.heldSecret = true
    return redacted.length > MAX_TEXT ? `${redacted.slice(0, MAX_TEXT)}...` : redacted
  }
}

/** What a descriptor holds: its value, or what its getter returns for `receiver` ({@link THREW} when it throws). */
function readDescriptor(descriptor: PropertyDescriptor, receiver: object): unknown {
  if ('value' in descriptor) return descriptor.value
  const getter = descriptor.get
  return getter ? attempt(() => Reflect.apply(getter, receiver, []) as unknown, THREW) : undefined
}

/** A function's own `name` when it is a plain string, without running a getter. */
function functionName(value: object): string {
  const descriptor = attempt(() => Reflect.getOwnPropertyDescriptor(value, 'name'), undefined)
  const name: unknown = descriptor?.value
  return typeof name === 'string' && name !== '' ? name : 'anonymous'
}

/** Sets `key` on a plain object as data, even `__proto__`. */
function setData(target: Record<string, SnapshotData>, key: string, value: SnapshotData): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true })
}

/** `node` as JSON-safe data: every property read; `undefined` where nothing was there. */
export function dataOf(node: ReadNode, keys?: readonly string[]): SnapshotData | undefined {
  if (node.kind === 'leaf') return node.data
  if (node.unreadable && node.properties.size === 0) return UNREADABLE
  if (node.isArray) return [...node.properties.values()].map((property) => dataOf(property.node) ?? null)
  const out: Record<string, SnapshotData> = {}
  for (const [key, property] of node.properties) {
    if (keys && !keys.includes(key)) continue
    const data = dataOf(property.node)
    if (data !== undefined) setData(out, key, data)
  }
  return out
}

/** `node` as a log line shows it: an error by its name, message, code, status, description, cause and errors. */
export function loggedOf(node: ReadNode): SnapshotData | undefined {
  if (node.kind === 'leaf') return node.data
  if (node.unreadable && node.properties.size === 0) return UNREADABLE
  if (node.isArray) return [...node.properties.values()].map((property) => loggedOf(property.node) ?? null)
  const out: Record<string, SnapshotData> = {}
  for (const [key, property] of node.properties) {
    if (node.isError && !LOGGED_ERROR_KEYS.includes(key)) continue
    const data = loggedOf(property.node)
    if (data !== undefined) setData(out, key, data)
  }
  return out
}

/** The string a read property holds, if it holds one. */
export function stringAt(node: ReadObject, key: string): string | undefined {
  const found = node.properties.get(key)?.node
  return found?.kind === 'leaf' && typeof found.data === 'string' ? found.data : undefined
}

/** `node` described in one line: a string as it is, anything else as JSON. */
export function textOf(node: ReadNode): string {
  const data = dataOf(node)
  if (data === undefined) return 'undefined'
  if (typeof data === 'string') return data
  const json = JSON.stringify(data)
  return json.length > MAX_TEXT ? `${json.slice(0, MAX_TEXT)}...` : json
}

/**
 * A thrown value read once, every secret replaced: what channels, spans, metrics and log lines are made of. Its parts are plain data: reading them runs no code of the thrower.
 */
export class ThrownSnapshot {
  /** What was read. */
  readonly node: ReadNode
  /** Whether the value was an `Error` (asked once). */
  readonly isError: boolean
  /** Whether a secret was found (and replaced) in what was read. */
  readonly heldSecret: boolean

  constructor(node: ReadNode, heldSecret: boolean) {
    this.node = node
    this.isError = node.kind === 'object' && node.isError
    this.heldSecret = heldSecret
  }

  /** Name, code, message and status; a value that is no `Error` as the `Strange error: ...` it becomes (spec 7). */
  summary(): ErrorSummary {
    const { node } = this
    if (node.kind === 'leaf' || !node.isError)
      return { name: 'Error', code: '', message: `Strange error: ${this.text()}` }
    const message = node.properties.get('message')?.node
    const summary: ErrorSummary = {
      name: stringAt(node, 'name') ?? 'Error',
      code: stringAt(node, 'code') ?? '',
      message: message === undefined ? '' : textOf(message),
    }
    const status = node.properties.get('status')?.node
    if (status?.kind === 'leaf' && typeof status.data === 'number') summary.status = status.data
    return summary
  }

  /** Everything read, as data. */
  data(): SnapshotData | undefined {
    return dataOf(this.node)
  }

  /** What a log line shows of it. */
  logged(): SnapshotData | undefined {
    return loggedOf(this.node)
  }

  /** The value in one line: a string as it is, anything else as JSON of what was read. */
  text(): string {
    return textOf(this.node)
  }
}

/**
 * Reads `value` once into a {@link ThrownSnapshot}. `known` gives the snapshot of an object read before (the
 * instance keeps them), so that an error met again inside another value is not read a second time.
 */
export function readThrown(
  value: unknown,
  redactor: TextRedactor,
  known: (value: object) => ThrownSnapshot | undefined = () => undefined,
): ThrownSnapshot {
  const reader = new Reader(redactor, known)
  const node = reader.read(value, 0)
  return new ThrownSnapshot(node, reader.heldSecret)
}
