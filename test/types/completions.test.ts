/**
 * What an editor completes while a call is being written (so it does not compile yet): the method's parameters at
 * `params: { | }`, required ones first, and every method name at `method: '|'`, deprecated ones included; and the
 * error it shows for a misspelt method. Asked of TypeScript 5.9's language service (the `typescript5`
 * devDependency) and of TypeScript 7's API, on a consumer file written under .tmp/ that imports the sources.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { API, type Diagnostic as Diagnostic7 } from 'typescript/unstable/sync'
import ts from 'typescript5'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { consumerLanguageService, writeConsumerProject } from '../../scripts/dev/consumer-language-service.js'
import { V2_METHODS } from '../../src/catalogue/methods.generated.js'

const root = fileURLToPath(new URL('../..', import.meta.url))
const dir = join(root, '.tmp', 'completions-test')
const file = join(dir, 'consumer.ts')

/** The consumer: `/*name*\/` marks where completions are asked (the marker itself is a comment or string). */
const CONSUMER = `import type { PortalOAuth } from '../../src/index.js'
declare const portal: PortalOAuth
const { v2, v3 } = portal.actions
void v2.call.make({ method: 'crm.item.list', params: { /*call*/ } })
void v2.call.make({ method: '/*method*/' })
void v2.call.make({ method: 'crm.deal.get', params: { /*deprecated*/ } })
void v2.callList.make({ method: 'crm.item.list', params: { /*list*/ } })
void v3.fetchList.make({ method: 'tasks.task.list', params: { /*v3list*/ } })
void v3.call.make({ method: 'tasks.task.add', params: { /*v3call*/ } })
void v2.batch.make({ calls: [['crm.item.list', { /*batch*/ }]] })
void v2.batch.make({ calls: [['crm.item.lst', { entityTypeId: 2 }]] }) // misspelt command
void v2.call.make({ method: 'crm.item.lst', params: { entityTypeId: 2 } }) // misspelt call
void v2.batch.make({ calls: { items: ['crm.item.lst', { entityTypeId: 2 }] } }) // misspelt named
void v2.batchByChunk.make({ calls: [{ method: 'crm.item.lst', params: { entityTypeId: 2 } }] }) // misspelt object
void v2.batch.make({ calls: [['user.current'], ['crm.item.lst', { entityTypeId: 2 }]] }) // misspelt second
void v2.batch.make({ calls: [['my.own.method']] }) // misspelt unknown
`

/** One completion entry, as both compilers report it. */
interface Entry {
  name: string
  sortText: string
}

/**
 * Completions at each marker, by marker name; and by the label of each line marked `// misspelt ...`, its error as
 * an editor shows it (the message chain, one line per level, trimmed) and where it starts on the line.
 */
type Completions = Record<string, Entry[]>

/** Marker name to its offset in {@link CONSUMER}. */
function markers(): Map<string, number> {
  return new Map([...CONSUMER.matchAll(/\/\*(\w+)\*\//g)].map((match) => [match[1] ?? '', match.index]))
}

/** TypeScript 5.9's language service over the consumer. */
function completions59(): Completions {
  const text = readFileSync(file, 'utf8')
  const service = consumerLanguageService(dir, file, () => ({ version: '1', text }))
  const result: Completions = {}
  for (const [name, offset] of markers()) {
    const info = service.getCompletionsAtPosition(file, offset, {})
    result[name] = (info?.entries ?? [])
      .filter((entry) => entry.kind === 'property' || entry.kind === 'string')
      .map((entry) => ({ name: entry.name, sortText: entry.sortText }))
  }
  // The doc comment an editor shows beside the first parameter completed at `params: { | }`.
  const callOffset = markers().get('call') ?? 0
  const details = service.getCompletionEntryDetails(
    file,
    callOffset,
    'entityTypeId',
    {},
    undefined,
    {},
    undefined,
  )
  result.doc = [{ name: ts.displayPartsToString(details?.documentation), sortText: '' }]
  for (const diagnostic of service.getSemanticDiagnostics(file)) {
    const message = ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n')
    addError(result, diagnostic.start ?? 0, message.split('\n'))
  }
  service.dispose()
  return result
}

/** Records the error starting at `offset` of {@link CONSUMER} under its line's label, if the line is marked misspelt. */
function addError(result: Completions, offset: number, lines: string[]): void {
  const before = CONSUMER.slice(0, offset).split('\n')
  const label = /\/\/ (misspelt \w+)$/.exec(CONSUMER.split('\n')[before.length - 1] ?? '')?.[1]
  if (label === undefined) return
  result[label] = lines.map((line) => ({ name: line.trim(), sortText: '' }))
  result[`${label} at`] = [{ name: String(before.at(-1)?.length), sortText: '' }]
}

/** A TypeScript 7 diagnostic's message chain, one line per level. */
function chain(diagnostic: Diagnostic7): string[] {
  return [diagnostic.text, ...(diagnostic.messageChain ?? []).flatMap(chain)]
}

/** TypeScript 7's API over the same consumer (its project: the tsconfig.json written beside it). */
function completions7(): Completions {
  const api = new API({ cwd: dir })
  try {
    const project = api
      .updateSnapshot({ openProjects: [join(dir, 'tsconfig.json')] })
      .getDefaultProjectForFile(file)
    if (project === undefined) throw new Error('no project holds the consumer')
    const result: Completions = {}
    for (const [name, offset] of markers()) {
      // Where the checker cannot type the position, the API answers only with an error (it would list globals).
      const info = completionsOrNone(() => project.checker.getCompletionsAtPosition(file, offset))
      // Members and string literals (globals and keywords come too where the checker cannot type the position).
      // An optional member's label ends in `?`.
      result[name] = (info?.entries ?? [])
        .filter((entry) => entry.kind !== undefined && KINDS_7.has(entry.kind))
        .map((entry) => ({ name: entry.name.replace(/\?$/, ''), sortText: entry.sortText ?? '' }))
    }
    for (const diagnostic of project.program.getSemanticDiagnostics(file)) {
      addError(result, diagnostic.pos, chain(diagnostic))
    }
    return result
  } finally {
    api.close()
  }
}

/** LSP completion kinds of members (Field, Property) and string literals (Constant), as TypeScript 7 reports them. */
const KINDS_7 = new Set([5, 10, 21])

/** The completions `ask` gives, or none when it throws (TypeScript 7's "completion list needs auto imports"). */
function completionsOrNone<T>(ask: () => T): T | undefined {
  try {
    return ask()
  } catch (error) {
    if (error instanceof Error && /auto imports/.test(error.message)) return undefined
    throw error
  }
}

const results: Record<string, Completions> = {}

beforeAll(() => {
  rmSync(dir, { recursive: true, force: true })
  mkdirSync(dir, { recursive: true })
  writeFileSync(file, CONSUMER)
  writeConsumerProject(dir)
  results['5.9'] = completions59()
  results['7'] = completions7()
}, 120_000)

afterAll(() => rmSync(dir, { recursive: true, force: true }))

const names = (entries: Entry[] | undefined): string[] => (entries ?? []).map((entry) => entry.name).sort()

/** The parameters of `crm.item.list`, sorted: what its call, its list actions and a batch command complete. */
const CRM_ITEM_LIST_PARAMS = ['entityTypeId', 'filter', 'order', 'select', 'start', 'useOriginalUfNames']

describe("a completed parameter's doc on TypeScript 5.9", () => {
  it("shows the docs' description", () => {
    expect(results['5.9']?.doc?.map((entry) => entry.name)).toEqual([
      'System or user type identifier whose items need to be retrieved.',
    ])
  })
})

describe.each(['5.9', '7'])('errors on TypeScript %s', (version) => {
  const lines = (label: string): string[] => (results[version]?.[label] ?? []).map((entry) => entry.name)
  const column = (label: string): number => Number(results[version]?.[`${label} at`]?.[0]?.name)
  const didYouMean =
    /^Type '"crm\.item\.lst"' is not assignable to type '.+'\. Did you mean '"crm\.item\.list"'\?$/

  it('a misspelt method fails in three lines suggesting the nearest name', () => {
    expect(lines('misspelt call')).toEqual([
      'No overload matches this call.',
      'The last overload gave the following error.',
      expect.stringMatching(didYouMean),
    ])
  })

  it('the names a misspelt method is told to be start with current methods, not deprecated ones', () => {
    const listed = /to type '(.+)'\./.exec(lines('misspelt call')[2] ?? '')?.[1] ?? ''
    const shown = listed
      .split(' | ')
      .map((name) => /^"(.+)"$/.exec(name)?.[1])
      .filter((name) => name !== undefined)
    expect(shown.length).toBeGreaterThan(3)
    // The names before TypeScript's "... N more ...": what the error shows first.
    const first = shown.slice(
      0,
      listed.split(' | ').findIndex((name) => name.startsWith('...')),
    )
    expect(first.length).toBeGreaterThan(3)
    // A packed entry's fifth field is the replacement of a deprecated method (`-` when the docs name none).
    const deprecated = (name: string): boolean => (V2_METHODS[name] ?? '').split('|').length > 4
    expect(Object.keys(V2_METHODS).filter(deprecated).length).toBeGreaterThan(200)
    expect(first.filter(deprecated)).toEqual([])
  })

  it.each([
    ['misspelt command', "'crm.item.lst'"],
    ['misspelt named', "'crm.item.lst'"],
    ['misspelt second', "'crm.item.lst'"],
    // An object command's error is at its method key, as call.make's is.
    ['misspelt object', 'method:'],
  ])('a batch fails as call.make does, where the name is written (%s)', (label, where) => {
    expect(lines(label)).toEqual(lines('misspelt call'))
    const line = CONSUMER.split('\n').find((text) => text.endsWith(`// ${label}`)) ?? ''
    expect(column(label)).toBe(line.indexOf(where))
  })

  it('a batch command of a method no name is near fails naming it, in three lines', () => {
    expect(lines('misspelt unknown')).toEqual([
      'No overload matches this call.',
      'The last overload gave the following error.',
      expect.stringMatching(/^Type '"my\.own\.method"' is not assignable to type '".+'\.$/),
    ])
  })
})

describe.each(['5.9', '7'])('completions on TypeScript %s', (version) => {
  const at = (marker: string): Entry[] => results[version]?.[marker] ?? []

  it("params: { | } lists the method's parameters, the required ones first", () => {
    const entries = at('call')
    expect(names(entries)).toEqual(CRM_ITEM_LIST_PARAMS)
    const required = entries.find((entry) => entry.name === 'entityTypeId')
    const optional = entries.filter((entry) => entry.name !== 'entityTypeId')
    for (const entry of optional) expect(entry.sortText > (required?.sortText ?? '')).toBe(true)
  })

  it("method: '|' lists every documented method, the deprecated ones included", () => {
    const listed = names(at('method'))
    expect(listed).toEqual(Object.keys(V2_METHODS).sort())
    expect(listed).toContain('crm.deal.get')
  })

  it('a deprecated method and v3 methods complete their parameters too', () => {
    expect(names(at('deprecated'))).toEqual(['id'])
    expect(names(at('v3call'))).toEqual(['fields'])
  })

  it('callList and fetchList complete the parameters of the method they list', () => {
    expect(names(at('list'))).toEqual(CRM_ITEM_LIST_PARAMS)
    expect(names(at('v3list'))).toEqual(expect.arrayContaining(['filter', 'select', 'order']))
  })

  it("a batch command completes its method's parameters", () => {
    expect(names(at('batch'))).toEqual(CRM_ITEM_LIST_PARAMS)
  })
})
