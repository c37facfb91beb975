/**
 * The type-check budget of the method catalogue, measured: consumer files that call 20 documented methods (through
 * `call.make`, `callList`/`fetchList`, `batch`/`batchByChunk`) type-checked by `tsc` against the built package
 * (`dist/`) and against a copy of it whose catalogue is `{ [method: string]: Record<string, unknown> }` (no results,
 * nothing deprecated), which is what `method: string` was. Used by `npm run catalogue:budget` and `npm run bench`.
 */
import { spawnSync } from 'node:child_process'
import { cpSync, existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { CONSUMER_COMPILER_OPTIONS } from '../dev/consumer-compiler-options.js'
import { CALL_MAKE_IMPORTS, callMakeBlock } from './emit-catalogue.js'

const root = resolve(import.meta.dirname, '../..')
const work = join(root, '.tmp', 'catalogue-budget')
/** The compilers measured: TypeScript 7 (the project's) and 5.9 (the `typescript5` devDependency), by label. */
export const COMPILERS: Readonly<Record<string, string>> = {
  '7': join(root, 'node_modules', 'typescript', 'bin', 'tsc'),
  '5.9': join(root, 'node_modules', 'typescript5', 'bin', 'tsc'),
}

/**
 * Median `tsc -p` times of one entry point's consumer, seconds: CPU time (user and system, all threads), which
 * other work on a loaded machine disturbs much less than wall time.
 */
export interface TypecheckBudget {
  /** The TypeScript version, a key of {@link COMPILERS}. */
  compiler: string
  /** `call`, `call300`, `list` or `batch`. */
  entryPoint: string
  /** Against the package whose catalogue names no method. */
  stringSeconds: number
  /** Against the built package. */
  catalogueSeconds: number
}

/** The 20 `call.make` calls of the `call` consumer (8 of them deprecated methods), as their options objects. */
const CALLS = [
  `{ method: 'crm.deal.get', params: { id: 1 } }`,
  `{ method: 'crm.deal.add', params: { fields: { TITLE: 'Deal', OPENED: 'Y' } } }`,
  `{ method: 'crm.deal.update', params: { id: 1, fields: { TITLE: 'Renamed' } } }`,
  `{ method: 'crm.contact.add', params: { fields: { NAME: 'Ann' } } }`,
  `{ method: 'crm.item.get', params: { entityTypeId: 2, id: 1 } }`,
  `{ method: 'crm.item.add', params: { entityTypeId: 2, fields: { title: 'Item' } } }`,
  `{ method: 'crm.item.list', params: { entityTypeId: 2, select: ['id'] } }`,
  `{ method: 'crm.lead.list', params: { filter: { STATUS_ID: 'NEW' } } }`,
  `{ method: 'crm.company.list', params: { select: ['ID'] } }`,
  `{ method: 'crm.contact.list', params: { select: ['ID', 'NAME'] } }`,
  `{ method: 'crm.deal.list', params: { filter: { '>ID': 5 } } }`,
  `{ method: 'user.get', params: { ID: 1 } }`,
  `{ method: 'user.current' }`,
  `{ method: 'im.message.add', params: { DIALOG_ID: 'chat1', MESSAGE: 'Hello' } }`,
  `{ method: 'catalog.product.list', params: { select: ['id'], filter: { iblockId: 1 } } }`,
  `{ method: 'sale.order.list', params: { select: ['id'] } }`,
  `{ method: 'crm.activity.list', params: { filter: { OWNER_ID: 1 } } }`,
  `{ method: 'crm.status.list', params: { filter: { ENTITY_ID: 'STATUS' } } }`,
  `{ method: 'calendar.event.get', params: { type: 'user', ownerId: 1 } }`,
  `{ method: 'crm.timeline.comment.add', params: { fields: { ENTITY_ID: 1, ENTITY_TYPE: 'deal', COMMENT: 'Hi' } } }`,
]

/** A consumer of `call.make`: the 20 calls of {@link CALLS}, `times` times (300 calls for 15). */
function callConsumer(times: number): string {
  const calls = Array.from({ length: times }, () => CALLS.map((options) => `    v2.make(${options}),`)).flat()
  return `
const v2 = portal.actions.v2.call
export async function calls(): Promise<unknown[]> {
  return Promise.all([
${calls.join('\n')}
  ])
}
`
}

/**
 * The consumer files: one per entry point, each naming 20 methods with their required parameters, and `call300`:
 * 300 `call.make` calls.
 */
const CONSUMERS: Record<string, string> = {
  call: callConsumer(1),
  call300: callConsumer(15),
  list: `
const v2 = portal.actions.v2
export async function lists(): Promise<void> {
  await v2.callList.make({ method: 'crm.deal.list', params: { select: ['ID'] } })
  await v2.callList.make({ method: 'crm.contact.list', params: { select: ['ID', 'NAME'] } })
  await v2.callList.make({ method: 'crm.company.list', params: { filter: { '>ID': 5 } } })
  await v2.callList.make({ method: 'crm.lead.list', params: { select: ['ID'] } })
  await v2.callList.make({ method: 'crm.item.list', params: { entityTypeId: 2 }, idKey: 'id', customKeyForResult: 'items' })
  await v2.callList.make({ method: 'crm.activity.list', params: { filter: { OWNER_ID: 1 } } })
  await v2.callList.make({ method: 'crm.status.list' })
  await v2.callList.make({ method: 'sale.order.list', params: { select: ['id'] }, idKey: 'id' })
  await v2.callList.make({ method: 'catalog.product.list', params: { select: ['id'], filter: { iblockId: 1 } } })
  await v2.callList.make({ method: 'user.get', params: { ACTIVE: true } })
  for await (const page of v2.fetchList.make({ method: 'crm.deal.list' })) void page
  for await (const page of v2.fetchList.make({ method: 'crm.contact.list' })) void page
  for await (const page of v2.fetchList.make({ method: 'crm.company.list' })) void page
  for await (const page of v2.fetchList.make({ method: 'crm.quote.list' })) void page
  for await (const page of v2.fetchList.make({ method: 'crm.invoice.list' })) void page
  for await (const page of v2.fetchList.make({ method: 'crm.product.list' })) void page
  for await (const page of v2.fetchList.make({ method: 'task.commentitem.getlist', params: { TASKID: 1 } })) void page
  for await (const page of v2.fetchList.make({ method: 'crm.requisite.list' })) void page
  for await (const page of v2.fetchList.make({ method: 'crm.address.list' })) void page
  for await (const page of v2.fetchList.make({ method: 'crm.timeline.comment.list', params: { filter: { ENTITY_ID: 1, ENTITY_TYPE: 'deal' } } })) void page
}
`,
  batch: `
const v2 = portal.actions.v2
declare const ids: number[]
export async function batches(): Promise<void> {
  await v2.batch.make({
    calls: [
      ['user.current'],
      ['user.get', { ID: '$result[0][ID]' }],
      ['crm.deal.get', { id: 1 }],
      ['crm.deal.add', { fields: { TITLE: 'Deal', OPENED: 'Y' } }],
      ['crm.deal.update', { id: 1, fields: { TITLE: 'Renamed' } }],
      ['crm.contact.add', { fields: { NAME: 'Ann' } }],
      ['crm.item.get', { entityTypeId: 2, id: 1 }],
      ['crm.item.add', { entityTypeId: 2, fields: { title: 'Item' } }],
      ['crm.item.list', { entityTypeId: 2 }],
      ['crm.lead.list', { filter: { STATUS_ID: 'NEW' } }],
    ],
  })
  await v2.batch.make({
    calls: {
      companies: { method: 'crm.company.list', params: { select: ['ID'] } },
      contacts: ['crm.contact.list', { select: ['ID', 'NAME'] }],
      deals: ['crm.deal.list', { filter: { '>ID': 5 } }],
      message: ['im.message.add', { DIALOG_ID: 'chat1', MESSAGE: 'Hello' }],
      products: ['catalog.product.list', { select: ['id'] }],
      orders: ['sale.order.list', { select: ['id'] }],
      activities: ['crm.activity.list', { filter: { OWNER_ID: 1 } }],
      statuses: ['crm.status.list', { filter: { ENTITY_ID: 'STATUS' } }],
      event: ['calendar.event.get', { type: 'user', ownerId: 1 }],
    },
    options: { isHaltOnError: false, returnAjaxResult: true },
  })
  await v2.batchByChunk.make({ calls: ids.map((id) => ['crm.timeline.comment.add', { fields: { ENTITY_ID: id, ENTITY_TYPE: 'deal', COMMENT: 'Hi' } }] as const) })
}
`,
}

/**
 * A copy of the built package whose catalogue names no method: every name is a `string`, with any parameters, and
 * no documented result or deprecated method.
 */
const STRING_CATALOGUE = [
  ...CALL_MAKE_IMPORTS,
  "import type { Obj } from './doc-types.js'",
  "import type { V2MethodResults, V3MethodResults } from './result-types.generated.js'",
  'export interface V2MethodParams { [method: string]: Obj }',
  'export interface V3MethodParams { [method: string]: Obj }',
  callMakeBlock([], 'v2'),
  callMakeBlock([], 'v3'),
].join('\n')
const STRING_RESULTS = `export interface V2MethodResults {}
export interface V3MethodResults {}
`

/** Writes both package copies and a consumer project per entry point and variant under .tmp/catalogue-budget. */
function prepare(): void {
  if (!existsSync(join(root, 'dist', 'src', 'index.d.ts'))) {
    throw new Error('dist/ is missing: run npm run build first')
  }
  rmSync(work, { recursive: true, force: true })
  mkdirSync(work, { recursive: true })
  cpSync(join(root, 'dist'), join(work, 'catalogue'), { recursive: true })
  cpSync(join(root, 'dist'), join(work, 'string'), { recursive: true })
  writeFileSync(join(work, 'string', 'src', 'catalogue', 'method-types.generated.d.ts'), STRING_CATALOGUE)
  writeFileSync(join(work, 'string', 'src', 'catalogue', 'result-types.generated.d.ts'), STRING_RESULTS)
  // A strict consumer's settings, without Node's types (the files use none) and without output.
  const { sourceMap: _sourceMap, rootDir: _rootDir, outDir: _outDir, ...strict } = CONSUMER_COMPILER_OPTIONS
  const compilerOptions = { ...strict, noEmit: true, types: [], lib: ['es2023', 'dom'] }
  for (const variant of ['catalogue', 'string']) {
    for (const [name, body] of Object.entries(CONSUMERS)) {
      const dir = join(work, `${variant}-${name}`)
      mkdirSync(dir)
      writeFileSync(
        join(dir, 'consumer.ts'),
        `import type { PortalOAuth } from '../${variant}/src/index.js'\ndeclare const portal: PortalOAuth\n${body}`,
      )
      writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions, files: ['consumer.ts'] }))
    }
  }
}

/** GNU time, which reports a command's CPU time (its threads and child processes included). */
const TIME = '/usr/bin/time'

/** CPU time (user + system) of one `tsc -p`, in seconds; throws when the consumer does not compile. */
function timeTsc(tsc: string, dir: string): number {
  const run = spawnSync(TIME, ['-f', 'cpu %U %S', process.execPath, tsc, '-p', join(dir, 'tsconfig.json')], {
    encoding: 'utf8',
  })
  if (run.error) throw new Error(`${TIME} is needed to measure CPU time: ${run.error.message}`)
  if (run.status !== 0) throw new Error(`tsc failed in ${dir}:\n${run.stdout}${run.stderr}`)
  const [, user, system] = /cpu ([\d.]+) ([\d.]+)\s*$/.exec(run.stderr) ?? []
  return Number(user) + Number(system)
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN
}

/** What to measure: compilers (keys of {@link COMPILERS}) and entry points (keys of the consumers); all by default. */
export interface BudgetSelection {
  /** TypeScript versions. */
  compilers?: readonly string[]
  /** Consumers: `call`, `call300`, `list`, `batch`. */
  entryPoints?: readonly string[]
  /** Leaves the consumers and package copies under .tmp/catalogue-budget (to measure them otherwise too). */
  keep?: boolean
}

/**
 * Medians of `runs` alternating runs per compiler and entry point, after one run of each that is not kept (disk
 * caches).
 */
export function measureTypecheckBudget(runs: number, selection: BudgetSelection = {}): TypecheckBudget[] {
  prepare()
  const compilers = selection.compilers ?? Object.keys(COMPILERS)
  const entryPoints = selection.entryPoints ?? Object.keys(CONSUMERS)
  try {
    return compilers.flatMap((compiler) => {
      const tsc = COMPILERS[compiler]
      if (tsc === undefined)
        throw new Error(`unknown compiler ${compiler}: one of ${Object.keys(COMPILERS).join(', ')}`)
      return entryPoints.map((entryPoint) => {
        const times: Record<string, number[]> = { string: [], catalogue: [] }
        for (let i = 0; i <= runs; i++) {
          for (const variant of ['string', 'catalogue']) {
            const seconds = timeTsc(tsc, join(work, `${variant}-${entryPoint}`))
            if (i > 0) times[variant]?.push(seconds)
          }
        }
        return {
          compiler,
          entryPoint,
          stringSeconds: median(times.string ?? []),
          catalogueSeconds: median(times.catalogue ?? []),
        }
      })
    })
  } finally {
    if (selection.keep !== true) rmSync(work, { recursive: true, force: true })
  }
}
