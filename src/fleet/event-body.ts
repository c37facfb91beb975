import type { SdkError } from '../errors/sdk-error.js'
import { invalidArgument } from '../validation/rules.js'

/** A parsed part of an event body: every leaf a string, built on `Object.create(null)`. */
export interface EventTree {
  readonly [key: string]: string | EventTree
}

/** The parts of an event body the fleet reads. */
export interface EventBody {
  /** `event`, upper case (`ONAPPINSTALL`). */
  event: string
  /** `auth[...]`: flat, every value a string. */
  auth: Readonly<Record<string, string>>
  /** `data[...]`, empty when the body has none. */
  data: EventTree
}

/**
 * Bounds on what an untrusted body may make the parser do: the largest honest event is about 1 KB with a dozen
 * `auth` fields and a few `data` fields two levels deep.
 */
export const EVENT_BODY_LIMITS = {
  /** Characters of the whole body (names and values). */
  chars: 64 * 1024,
  /** Fields. */
  fields: 256,
  /** Names in one field's path: `data[FIELDS][ID]` has 3. */
  depth: 5,
} as const

/** Names that reach an object's prototype when written through; a body holding one is refused outright. */
const FORBIDDEN_NAMES: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype'])

type MutableTree = { [key: string]: string | MutableTree }

/**
 * The errors the parser raised itself, told apart by identity: what a hostile getter or proxy trap throws may claim
 * any class, or be a proxy whose own traps throw when `instanceof` asks.
 */
const raised = new WeakSet<SdkError>()

/** A body refused: the problem is about the body as a whole or a field it names. */
function hostile(problem: string): SdkError {
  const error = invalidArgument('handleEvent:', problem)
  raised.add(error)
  return error
}

/** Whether `error` is one the parser raised; never runs code of the body's (a WeakSet lookup calls no trap). */
function raisedHere(error: unknown): boolean {
  // Stryker disable next-line ConditionalExpression,LogicalOperator: WeakSet.has answers false for null and primitives
  return typeof error === 'object' && error !== null && raised.has(error as SdkError)
}

/** A field name for a message: quoted and cut short, since the body is untrusted. */
function shown(name: string): string {
  return JSON.stringify(name.length > 40 ? `${name.slice(0, 40)}...` : name)
}

/** `auth[member_id]` as `['auth', 'member_id']`; refuses empty (`a[]`), unbalanced, too deep or forbidden names. */
function splitName(name: string, prefix: readonly string[]): string[] {
  const open = name.indexOf('[')
  const path = [...prefix, open === -1 ? name : name.slice(0, open)]
  if (path.length > EVENT_BODY_LIMITS.depth) throw hostile(`field name ${shown(name)} is nested too deep`)
  let at = open
  while (at !== -1 && at < name.length) {
    if (name[at] !== '[') throw hostile(`field name ${shown(name)} is malformed`)
    const close = name.indexOf(']', at)
    const segment = close === -1 ? '' : name.slice(at + 1, close)
    if (segment === '' || segment.includes('['))
      throw hostile(`field name ${shown(name)} is malformed or asks for a list`)
    path.push(segment)
    if (path.length > EVENT_BODY_LIMITS.depth) throw hostile(`field name ${shown(name)} is nested too deep`)
    at = close + 1
  }
  for (const segment of path) {
    if (segment === '' || segment.includes(']')) throw hostile(`field name ${shown(name)} is malformed`)
    if (FORBIDDEN_NAMES.has(segment)) throw hostile(`field name ${shown(name)} is not allowed`)
  }
  return path
}

/** Builds the tree field by field, counting fields and characters; a name given twice is refused (a list). */
class TreeBuilder {
  readonly root: MutableTree = Object.create(null)
  #fields = 0
  #chars = 0

  add(path: readonly string[], value: string): void {
    this.#fields += 1
    if (this.#fields > EVENT_BODY_LIMITS.fields)
      throw hostile(`the body has more than ${EVENT_BODY_LIMITS.fields} fields`)
    this.#chars += value.length + path.reduce((sum, segment) => sum + segment.length, 0)
    if (this.#chars > EVENT_BODY_LIMITS.chars)
      throw hostile(`the body is larger than ${EVENT_BODY_LIMITS.chars} characters`)
    let node = this.root
    for (const segment of path.slice(0, -1)) {
      const next = node[segment]
      if (typeof next === 'string')
        throw hostile(`field ${shown(path.join('.'))} is both a value and a group`)
      if (next) {
        node = next
      } else {
        const group: MutableTree = Object.create(null)
        node[segment] = group
        node = group
      }
    }
    const leaf = path[path.length - 1] as string
    if (leaf in node) throw hostile(`field ${shown(path.join('.'))} is given more than once`)
    node[leaf] = value
  }

  /** Walks an object as a body parser gives it: nested groups, flat bracket names, or both. */
  addObject(value: Record<string, unknown>, prefix: readonly string[]): void {
    for (const name of Object.keys(value)) {
      const path = splitName(name, prefix)
      const item = value[name]
      if (typeof item === 'string') this.add(path, item)
      else if (Number.isFinite(item)) this.add(path, String(item))
      else if (isPlainObject(item)) this.addObject(item, path)
      else
        throw hostile(
          `field ${shown(path.join('.'))} must be a string; got ${Array.isArray(item) ? 'a list' : typeof item}`,
        )
    }
  }
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false
  const proto = Object.getPrototypeOf(value)
  return proto === Object.prototype || proto === null
}

/**
 * Reads a body that is not a string. Every step may run the body's own code (`instanceof` and the prototype check
 * call a proxy's `getPrototypeOf`, the walk its `ownKeys`, `getOwnPropertyDescriptor` and `get`, and getters, at any
 * depth; iterating calls what claims to be a `URLSearchParams`): anything thrown makes the body unreadable, refused
 * like any hostile one.
 */
function readUntrusted(body: unknown, builder: TreeBuilder): void {
  try {
    if (body instanceof URLSearchParams) fromParams(body, builder)
    else if (isPlainObject(body)) builder.addObject(body, [])
    else throw hostile('body must be the form-encoded string, a URLSearchParams or an object')
  } catch (error) {
    if (raisedHere(error)) throw error
    throw hostile('the body object could not be read (a getter or proxy threw)')
  }
}

function fromParams(params: URLSearchParams, builder: TreeBuilder): void {
  for (const [name, value] of params) builder.add(splitName(name, []), value)
}

/**
 * Parses an event body without trusting it: the raw form-encoded string, a `URLSearchParams`, or an object as a
 * body parser gives it (nested `{ event, auth: { ... } }` or flat `{ 'auth[access_token]': ... }`). Nothing is
 * written through `__proto__`, `constructor` or `prototype`: a body naming one, nesting deeper than a real event,
 * larger than 64 KB, with more than 256 fields, or with a list where a string belongs is refused with
 * `JSSDK_INVALID_ARGUMENT`.
 */
export function parseEventBody(body: unknown): EventBody {
  const builder = new TreeBuilder()
  if (typeof body === 'string') {
    if (body.length > EVENT_BODY_LIMITS.chars * 3)
      throw hostile(`the body is larger than ${EVENT_BODY_LIMITS.chars} characters`)
    fromParams(new URLSearchParams(body), builder)
  } else {
    readUntrusted(body, builder)
  }
  const { event, auth, data } = builder.root
  if (typeof event !== 'string' || !/^[A-Za-z0-9_]{1,64}$/.test(event))
    throw hostile('event must be an event code such as ONAPPINSTALL')
  if (auth === undefined || typeof auth === 'string') throw hostile('the body has no auth[...] fields')
  for (const name of Object.keys(auth)) {
    if (typeof auth[name] !== 'string') throw hostile(`field ${shown(`auth.${name}`)} must be a string`)
  }
  if (typeof data === 'string') throw hostile('data must be a group of fields')
  return {
    event: event.toUpperCase(),
    auth: auth as Readonly<Record<string, string>>,
    data: data ?? Object.create(null),
  }
}
