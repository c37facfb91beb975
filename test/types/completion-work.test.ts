/**
 * The work TypeScript 5.9's language service does for one completion while a call is being written (it does not
 * compile yet), counted in type instantiations, which no load moves: a batch command's parameters in each form, a
 * list's, a call's and the method names. Each request follows an edit, so it has a new checker, as a keystroke makes.
 * The bounds hold the shapes docs/catalogue.md ("In an editor") explains: a result-typed signature that builds or
 * walks the union of every documented method on each keystroke costs 14 000 to 113 000.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type ts from 'typescript5'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { consumerLanguageService, writeConsumerProject } from '../../scripts/dev/consumer-language-service.js'

const root = fileURLToPath(new URL('../..', import.meta.url))
const dir = join(root, '.tmp', 'completion-work-test')
const file = join(dir, 'consumer.ts')

/** Each position asked at (`|` marks it), with the most instantiations its completion may cost. */
const POSITIONS = [
  [
    'a batch command as a tuple',
    `v2.batch.make({ calls: [['user.current'], ['crm.item.list', { | }]] })`,
    8_000,
  ],
  ['a named batch command', `v2.batch.make({ calls: { deal: ['crm.item.get', { | }] } })`, 8_000],
  [
    'a batch command object',
    `v2.batchByChunk.make({ calls: [{ method: 'crm.item.update', params: { | } }] })`,
    8_000,
  ],
  ['fetchList', `v2.fetchList.make({ method: 'crm.item.list', params: { | } })`, 2_000],
  ['callList', `v2.callList.make({ method: 'crm.item.list', params: { | } })`, 2_000],
  ['call.make', `v2.call.make({ method: 'crm.item.list', params: { | } })`, 2_000],
  ['the method names', `v2.call.make({ method: '|' })`, 2_000],
  ['a call that compiles', `v2.call.make({ method: 'user.get', params: { | } })`, 1_000],
] as const

/** The consumer with one call, edit number `edit` (a new text, so a new program and checker). */
function consumer(call: string, edit: number): string {
  return `import type { PortalOAuth } from '../../src/index.js'
declare const portal: PortalOAuth
const { v2 } = portal.actions
export const edit = ${edit}
void ${call}
`
}

let service: ts.LanguageService | undefined
let text = ''
let version = 0

beforeAll(() => {
  mkdirSync(dir, { recursive: true })
  writeConsumerProject(dir)
  text = consumer(`v2.call.make({ method: 'user.current' })`, 0)
  writeFileSync(file, text)
  service = consumerLanguageService(dir, file, () => ({ version: String(version), text }))
  // The first request reads the declarations; the ones measured below follow an edit each.
  service.getCompletionsAtPosition(file, text.length - 2, {})
}, 120_000)

afterAll(() => {
  service?.dispose()
  rmSync(dir, { recursive: true, force: true })
})

/** The completions at `|` of `call` after an edit, and the type instantiations the request's checker made. */
function ask(call: string): { names: string[]; instantiations: number } {
  version++
  const written = consumer(call, version)
  const offset = written.indexOf('|')
  text = written.slice(0, offset) + written.slice(offset + 1)
  const info = service?.getCompletionsAtPosition(file, offset, {})
  // Internal to TypeScript 5 (what `tsc --extendedDiagnostics` prints as "Instantiation count").
  const checker = service?.getProgram()?.getTypeChecker() as
    | { getInstantiationCount?: () => number }
    | undefined
  return {
    names: (info?.entries ?? []).map((entry) => entry.name),
    instantiations: checker?.getInstantiationCount?.() ?? Number.NaN,
  }
}

describe('a completion while a call is being written (TypeScript 5.9)', () => {
  it.each(POSITIONS)(
    '%s: completes, and costs at most the bound in type instantiations',
    (_name, call, bound) => {
      const { names, instantiations } = ask(call)
      expect(names.length).toBeGreaterThan(0)
      expect(instantiations).toBeLessThanOrEqual(bound)
    },
  )
})
