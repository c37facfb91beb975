/**
 * A call of a deprecated method shows as deprecated where it is written, and names the replacement: the compiler's
 * suggestion diagnostics (what an editor strikes through) and the `@deprecated` note of the signature the call
 * resolves to (what its hover shows), read through TypeScript's own API from test/types/fixtures/deprecated-calls.ts.
 */
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { type Node, SyntaxKind } from 'typescript/unstable/ast'
import { API } from 'typescript/unstable/sync'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

const root = fileURLToPath(new URL('../..', import.meta.url))
const fixture = fileURLToPath(new URL('./fixtures/deprecated-calls.ts', import.meta.url))

/** What an editor shows for one call of the fixture. */
interface CallView {
  /** The comment that names the call. */
  label: string
  /** The suggestion diagnostics on the call's line that report something deprecated. */
  deprecated: string[]
  /** The `@deprecated` note of the signature the call resolves to, if any. */
  note: string | undefined
}

let api: API | undefined
let views: CallView[] = []
/** The calls through `methods[name]`: their labels and what is reported deprecated on their lines. */
let byName: CallView[] = []

beforeAll(() => {
  api = new API({ cwd: root })
  const project = api
    .updateSnapshot({ openProjects: [`${root}tsconfig.json`] })
    .getDefaultProjectForFile(fixture)
  if (project === undefined) throw new Error('no project holds the fixture')
  const text = readFileSync(fixture, 'utf8')
  const lineOf = (offset: number): number => text.slice(0, offset).split('\n').length
  const suggestions = project.program.getSuggestionDiagnostics(fixture)
  const source = project.program.getSourceFile(fixture)
  if (source === undefined) throw new Error('the fixture was not loaded')
  const calls: Node[] = []
  const visit = (node: Node): void => {
    if (node.kind === SyntaxKind.CallExpression && node.getText(source).startsWith('call.make'))
      calls.push(node)
    node.forEachChild(visit)
  }
  source.forEachChild(visit)
  byName = text.split('\n').flatMap((line, index) => {
    const label = /\/\/ (by name .+)$/.exec(line)?.[1]
    if (label === undefined) return []
    const deprecated = suggestions
      .filter((diagnostic) => diagnostic.reportsDeprecated && lineOf(diagnostic.pos) === index + 1)
      .map((diagnostic) => diagnostic.text)
    return [{ label, deprecated, note: undefined }]
  })
  views = calls.map((node) => {
    const line = lineOf(node.getStart(source))
    const declaration = project.checker.getResolvedSignature(node)?.declaration?.resolve()
    const doc = declaration?.getFullText(declaration.getSourceFile()) ?? ''
    return {
      label: /\/\/ (.+)$/.exec(text.split('\n')[line - 1] ?? '')?.[1] ?? '',
      deprecated: suggestions
        .filter((diagnostic) => diagnostic.reportsDeprecated && lineOf(diagnostic.pos) === line)
        .map((diagnostic) => diagnostic.text),
      note: /@deprecated ([^*]+?)\s*\*\//.exec(doc)?.[1],
    }
  })
}, 60_000)

afterAll(() => api?.close())

describe('call.make of a deprecated method', () => {
  it('is reported deprecated at the call, and the signature it resolves to names the replacement', () => {
    expect(views.map((view) => view.label)).toEqual([
      'deprecated: crm.item.add',
      'deprecated: crm.item.get',
      'deprecated: tasks.task.get',
      'current',
      'unchecked',
    ])
    for (const view of views.slice(0, 3)) {
      const replacement = view.label.replace('deprecated: ', '')
      expect(view.deprecated).toEqual([
        expect.stringMatching(/^The signature .* of 'call\.make' is deprecated\.$/),
      ])
      expect(view.note).toBe(`Use ${replacement}.`)
    }
  })

  it('a current method and an unchecked call are not', () => {
    for (const view of views.slice(3)) {
      expect(view.deprecated).toEqual([])
      expect(view.note).toBeUndefined()
    }
  })
})

describe('methods[name] of a deprecated method', () => {
  it('is reported deprecated where the name is written; a current one is not', () => {
    expect(byName.map((view) => [view.label, view.deprecated])).toEqual([
      ['by name deprecated: crm.item.get', [expect.stringMatching(/'crm\.deal\.get' is deprecated\.$/)]],
      ['by name current', []],
    ])
  })
})
