/**
 * The shape of a method's `result`, read from the JSON answer the docs show: what the portal sends (`"ID": "410"`
 * is a string, `"result": 394` a number), merged over the rows of a list, written as a TypeScript type.
 */

/** What the values seen at one place of the answer were. */
export interface Shape {
  /** JSON primitive kinds seen: `string`, `number`, `boolean`, `null`, and `numeric` (an id's digits-only string). */
  readonly primitives: Set<string>
  /** The merged items, when an array was seen. */
  items?: Shape
  /** The merged fields, when an object was seen: each field's shape and in how many of the objects it was. */
  fields?: Map<string, { shape: Shape; seen: number }>
  /** How many objects were seen here (to tell a field every object has). */
  objects: number
  /** An object keyed by ids (`{ "12": {...} }`) or field names (a fields description): its values merged. */
  map?: Shape
}

/** A shape that has seen nothing yet. */
function emptyShape(): Shape {
  return { primitives: new Set(), objects: 0 }
}

/**
 * An object keyed by ids or indices rather than by field names, or a description of fields keyed by field name
 * (`crm.deal.fields`: at least four entries, each an object of much the same keys), whose keys vary by portal.
 */
function isKeyedMap(entries: ReadonlyArray<[string, unknown]>): boolean {
  if (entries.length > 0 && entries.every(([key]) => /^\d+$/.test(key))) return true
  const values = entries.map(([, value]) => value)
  if (values.length < 4 || !values.every((value) => isPlainObject(value))) return false
  const sizes = values.map((value) => Object.keys(value as object).length)
  const union = new Set(values.flatMap((value) => Object.keys(value as object)))
  return union.size <= 1.5 * Math.max(...sizes)
}

function isPlainObject(value: unknown): boolean {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
}

/** A key that holds an id (`ID`, `id`, `OWNER_ID`, `entityTypeId`): its digits-only strings are numeric ids. */
function isIdKey(key: string): boolean {
  return /^id$|Id$|(^|_)ID$/.test(key)
}

/**
 * Adds one JSON value seen at this place. `idKey`: the place is an id's (a digits-only string there is a numeric
 * string, `${number}`, which a parameter taking that id accepts as it is).
 */
export function addValue(shape: Shape, value: unknown, idKey = false): Shape {
  if (value === null) shape.primitives.add('null')
  else if (Array.isArray(value)) {
    shape.items ??= emptyShape()
    for (const item of value) addValue(shape.items, item, idKey)
  } else if (typeof value === 'object') {
    const entries = Object.entries(value)
    if (isKeyedMap(entries)) {
      shape.map ??= emptyShape()
      for (const [, item] of entries) addValue(shape.map, item)
    } else {
      shape.objects++
      shape.fields ??= new Map()
      for (const [key, item] of entries) {
        const field = shape.fields.get(key) ?? { shape: emptyShape(), seen: 0 }
        field.seen++
        addValue(field.shape, item, isIdKey(key))
        shape.fields.set(key, field)
      }
    }
  } else if (typeof value === 'string' && idKey && /^\d+$/.test(value)) shape.primitives.add('numeric')
  else shape.primitives.add(typeof value)
  return shape
}

/** Deepest level written out; deeper values are `unknown`. */
const MAX_DEPTH = 5

/** A key as written in a type literal. */
function key(name: string): string {
  return /^[A-Za-z_$][\w$]*$/.test(name) ? name : JSON.stringify(name)
}

/**
 * The TypeScript type of a shape. Object fields are optional (what a row holds follows `select`, and the docs show
 * one answer), except those every answer has: the fields of a wrapper (an object whose every field is an object or
 * a list, such as `{ item: {...} }` or `{ items: [...] }`) and an object's own id (`id`, `ID`: a row carries it
 * whatever `select` asks for, and it is what the next call takes); every object also takes other keys (custom
 * fields). `null` seen alone says nothing about the type: `unknown`.
 */
export function shapeType(shape: Shape, depth = 0): string {
  if (depth > MAX_DEPTH) return 'unknown'
  const parts: string[] = []
  for (const primitive of ['string', 'number', 'boolean'])
    if (shape.primitives.has(primitive)) parts.push(primitive)
  // An id the example shows as "410": a numeric string (a string seen too makes it any string).
  // biome-ignore lint/suspicious/noTemplateCurlyInString: the TypeScript type it writes
  if (shape.primitives.has('numeric') && !shape.primitives.has('string')) parts.push('`${number}`')
  if (shape.items) {
    const item = shapeType(shape.items, depth + 1)
    parts.push(/^\w+$/.test(item) ? `${item}[]` : `Array<${item}>`)
  }
  if (shape.fields) parts.push(objectType(shape.fields, depth))
  if (shape.map) parts.push(`Record<string, ${shapeType(shape.map, depth + 1)}>`)
  if (parts.length === 0) return 'unknown'
  if (shape.primitives.has('null')) parts.push('null')
  return parts.join(' | ')
}

/** An object's own id: `id` or `ID` holding a number or a numeric string (never null in the example). */
function isOwnId(name: string, shape: Shape): boolean {
  const kinds = [...shape.primitives]
  return (
    (name === 'id' || name === 'ID') &&
    kinds.length > 0 &&
    kinds.every((kind) => kind === 'number' || kind === 'numeric') &&
    !shape.items &&
    !shape.fields &&
    !shape.map
  )
}

function objectType(fields: Map<string, { shape: Shape; seen: number }>, depth: number): string {
  const all = [...fields.values()]
  const wrapper =
    all.length > 0 &&
    all.every(({ shape }) => shape.primitives.size === 0 && (shape.items || shape.fields || shape.map))
  const members = [...fields].map(
    ([name, field]) =>
      `${key(name)}${wrapper || isOwnId(name, field.shape) ? '' : '?'}: ${shapeType(field.shape, depth + 1)}`,
  )
  return `{ ${[...members, '[key: string]: unknown'].join('; ')} }`
}

/**
 * The `result` of the first JSON answer in `section` that parses and has one, or `undefined`. `correct` fixes a
 * page's mistakes (errata.ts): the block's text, then the parsed answer.
 */
export function exampleResult(
  section: string,
  correct: { json(text: string): string; answer(value: unknown): unknown } = {
    json: (text) => text,
    answer: (value) => value,
  },
): { result: unknown } | undefined {
  for (const block of section.matchAll(/```(?:json|js|javascript)?[ \t]*\n([\s\S]*?)```/g)) {
    const text = correct
      .json(block[1] ?? '')
      // Comments, elisions (`...` for more rows or fields) and trailing commas, which the docs' examples have.
      .replace(/^\s*\/\/[^\n]*$/gm, '')
      .replace(/^\s*(?:\.\.\.|…)\s*(?:\/\/[^\n]*)?$/gm, '')
      .replace(/,(\s*[}\]])/g, '$1')
    try {
      const answer = correct.answer(JSON.parse(text) as unknown)
      if (answer !== null && typeof answer === 'object' && 'result' in answer)
        return { result: answer.result }
    } catch {
      // Not JSON (an example in another language, or with placeholders): the next block may be.
    }
  }
  return undefined
}
