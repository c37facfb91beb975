/**
 * `answers.generated.ts`: what the emulator answers as the portal would, read from the docs' example answers: the
 * example `result` of the methods that read the entities the docs cite most (`*.get`, `*.list`, `*.current`, and
 * the most cited `*.fields`), from which the emulator seeds its entities, and the error each page shows for an id
 * that does not exist.
 */
import type { DocMethod } from './doc-model.js'
import { type DocsSource, header } from './emit-catalogue.js'

/** The last segments of the methods whose example answer seeds the emulator (one object, a list, a description). */
const SEEDING = /\.(get|list|getlist|fields|getfields|current)$|^profile$/i
const FIELDS = /\.(fields|getfields)$/i

/**
 * How many other pages must name a read method for its entity to be seeded (or a `fields` method, for its
 * description): the examples of every read would add 68 kB to the packed package, these 28 kB (docs/catalogue.md,
 * "In the emulator"). 8 takes in the 73 entities, 122 methods, the docs send readers to most (`user.get` 142 pages,
 * `crm.item.list` 72, ... `disk.storage.getList` 9).
 */
export const SEED_MIN_CITATIONS = 8

/** How many of the most cited seeded methods `MOST_CITED` lists (the emulator's test holds their answers). */
const MOST_CITED_COUNT = 30

/** The entity of a method: its name without the last segment, per API version (`v2 crm.deal`). */
function entityOf(method: DocMethod): string {
  const dot = method.name.lastIndexOf('.')
  return `${method.version} ${dot < 0 ? method.name : method.name.slice(0, dot)}`
}

/** A method whose page shows an example answer of a read the emulator seeds from. */
function readsObjects(method: DocMethod): method is DocMethod & { result: { example: unknown } } {
  return SEEDING.test(method.name) && method.result !== undefined && 'example' in method.result
}

/**
 * The methods whose examples seed the emulator: every read of an entity one of whose reads (but `fields`) is cited
 * by at least {@link SEED_MIN_CITATIONS} pages, each `fields` method cited that much, and `profile`.
 */
export function seedingMethods(methods: readonly DocMethod[]): DocMethod[] {
  const cited = (method: DocMethod) => (method.citedBy ?? 0) >= SEED_MIN_CITATIONS
  const entities = new Set(
    methods
      .filter((method) => readsObjects(method) && !FIELDS.test(method.name) && cited(method))
      .map(entityOf),
  )
  return methods.filter(
    (method) =>
      readsObjects(method) &&
      (method.name === 'profile' ||
        (FIELDS.test(method.name) ? cited(method) : entities.has(entityOf(method)))),
  )
}

/**
 * The example with each list cut to its first element: a list example shows two or three rows of the same keys,
 * and the emulator makes its objects from one (a top-level list, the list of a wrapper, `{ items: [...] }`, and
 * the lists inside an object, `fm`, `items` of a field, whose keys one element shows as well).
 */
function firstElements(value: unknown): unknown {
  if (Array.isArray(value)) return value.slice(0, 1).map(firstElements)
  if (value === null || typeof value !== 'object') return value
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, firstElements(item)]))
}

/** One entry of a generated object, keyed by method name. */
function entry(name: string, value: unknown): string {
  return `  ${JSON.stringify(name)}: ${JSON.stringify(value)},`
}

/** The examples that seed the emulator, of one API version. */
function examples(seeding: readonly DocMethod[], version: 'v2' | 'v3'): string[] {
  return seeding.flatMap((method) => {
    const result = method.result
    if (method.version !== version || result === undefined || !('example' in result)) return []
    return [entry(method.name, firstElements(result.example))]
  })
}

/** The {@link MOST_CITED_COUNT} most cited seeded methods, `version name`, most cited first (then by name). */
function mostCited(seeding: readonly DocMethod[]): string[] {
  return [...seeding]
    .sort((a, b) => (b.citedBy ?? 0) - (a.citedBy ?? 0) || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .slice(0, MOST_CITED_COUNT)
    .map(
      (method) => `  ${JSON.stringify(`${method.version} ${method.name}`)}, // ${method.citedBy ?? 0} pages`,
    )
}

/** The methods that look an object up by its id, and answer the page's not-found error for an unknown one. */
const BY_ID = /\.(get|update|delete)$/i

/** The not-found errors of one API version, `[code, message]` (`{id}` in the message stands for the id). */
function notFound(methods: readonly DocMethod[], version: 'v2' | 'v3'): string[] {
  return methods.flatMap((method) =>
    method.version === version && BY_ID.test(method.name) && method.notFound
      ? [entry(method.name, [method.notFound.code, method.notFound.message])]
      : [],
  )
}

/** The source of `answers.generated.ts`. */
export function emitAnswers(methods: readonly DocMethod[], source: DocsSource): string {
  const block = (name: string, doc: string, type: string, lines: string[]) => [
    `/** ${doc} */`,
    `export const ${name}: Readonly<Record<string, ${type}>> = {`,
    ...lines,
    '}',
    '',
  ]
  const seeding = seedingMethods(methods)
  return [
    header(source, "The docs' example answers the emulator serves: seed entities and not-found errors."),
    `/** The ${MOST_CITED_COUNT} seeded methods other pages of the docs name most (\`version name\`), most cited first. */`,
    'export const MOST_CITED: readonly string[] = [',
    ...mostCited(seeding),
    ']',
    '',
    ...block(
      'V2_EXAMPLES',
      'The example `result` of each seeded REST v2 method, by method name (each list cut to its first element).',
      'unknown',
      examples(seeding, 'v2'),
    ),
    ...block('V3_EXAMPLES', 'The same for REST v3.', 'unknown', examples(seeding, 'v3')),
    ...block(
      'V2_NOT_FOUND',
      'The error each REST v2 page shows for an id that does not exist: `[code, message]`, `{id}` for the id.',
      'readonly [string, string]',
      notFound(methods, 'v2'),
    ),
    ...block('V3_NOT_FOUND', 'The same for REST v3.', 'readonly [string, string]', notFound(methods, 'v3')),
  ].join('\n')
}
