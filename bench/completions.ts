/**
 * `npm run bench:completions`: what an editor waits for while a consumer of the built package is being written.
 * TypeScript 5.9's language service (the `typescript5` devDependency, what tsserver runs) and TypeScript 7's API
 * are driven over one consumer file: each sample edits the file (a new program, so a new checker, as each keystroke
 * makes) and asks one thing at one position, timed: the method names at `method: '|'`, the parameters at
 * `params: { | }` of several methods, a batch command's parameters, the hover on a method name and on `make`; the
 * same at `methods['|']`, `methods['crm.item.list']({ | })` and on `methods['crm.item.add']`'s name. And
 * the first request after the project opens: a new service, its first completion.
 *
 * `ROUNDS` sets the samples per position (default 9), `TSC` the compilers (`5.9,7`), `FIRST=0` skips the first
 * requests, `MARKERS` a pattern of the positions asked at (`params|batch`); `PACKAGES` a comma-separated list of
 * built packages to compare (default `dist`): the samples of each are alternated, each package first in turn, so
 * that the machine's other work falls on all of them alike. Prints per kind of request the wall time's min, median
 * and max (what the request kept the editor waiting), and for TypeScript 5.9 beside it the CPU time of the main
 * thread and of the whole process (`first-cpu`: the first request's process CPU time), and the load average. `VERBOSE=1` also prints each
 * position's figures and answers.
 */
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { loadavg } from 'node:os'
import { join, relative, resolve } from 'node:path'
import { performance } from 'node:perf_hooks'
import { API } from 'typescript/unstable/sync'
import ts from 'typescript5'
import { consumerLanguageService, writeConsumerProject } from '../scripts/dev/consumer-language-service.js'
import { runMain } from '../scripts/dev/run-main.js'
import { mainThreadCpu } from './lib/cpu.js'

const root = resolve(import.meta.dirname, '..')
const work = join(root, '.tmp', 'bench-completions')
const rounds = Number(process.env.ROUNDS ?? 9)
const compilers = (process.env.TSC ?? '5.9,7').split(',').filter(Boolean)
const packages = (process.env.PACKAGES ?? 'dist').split(',').filter(Boolean)
const only = new RegExp(process.env.MARKERS ?? '.')

/** The consumer body; `/*name*\/` marks a position asked at (kind: the part of the name before `_`). */
const CONSUMER = `declare const portal: PortalOAuth
const { v2, v3 } = portal.actions
export async function edited(): Promise<void> {
  const edit = 0
  void edit
  await v2.call.make({ method: '/*names*/' })
  await v2.call.make({ method: 'crm.item.list', params: { /*params_list*/ } })
  await v2.call.make({ method: 'crm.item.add', params: { entityTypeId: 2, fields: { /*params_itemfields*/ } } })
  await v2.call.make({ method: 'user.get', params: { /*params_user*/ } })
  await v2.call.make({ method: 'im.message.add', params: { /*params_im*/ } })
  await v2.call.make({ method: 'crm.deal.add', params: { /*params_deprecated*/ } })
  await v2.call.make({ method: 'crm.timeline.comment.add', params: { fields: { /*params_nested*/ } } })
  await v3.call.make({ method: 'tasks.task.add', params: { fields: { /*params_v3*/ } } })
  await v2.callList.make({ method: 'catalog.product.list', params: { /*params_callList*/ } })
  await v2.fetchList.make({ method: 'crm.item.list', params: { /*params_fetchList*/ } })
  await v2.batch.make({ calls: [['user.current'], ['crm.item.list', { /*batch_tuple*/ }]] })
  await v2.batch.make({ calls: { deal: ['crm.item.get', { /*batch_named*/ }] } })
  await v2.batchByChunk.make({ calls: [{ method: 'crm.item.update', params: { /*batch_object*/ } }] })
  await v2.call./*hover_make*/make({ method: 'crm.item.add', params: { entityTypeId: 2, fields: {} } })
  await v2.call.make({ method: /*hover_method*/'crm.item.add', params: { entityTypeId: 2, fields: {} } })
  await v2.methods['/*names_byname*/']
  await v2.methods['crm.item.list']({ /*params_byname*/ })
  await v2.methods[/*hover_byname*/'crm.item.add']({ entityTypeId: 2, fields: {} })
}
`

/** The kinds of request reported, in order. */
const KINDS = ['names', 'params', 'batch', 'hover'] as const

/** One position asked at. */
interface Marker {
  name: string
  kind: string
  offset: number
}

function markers(text: string): Marker[] {
  return [...text.matchAll(/\/\*(\w+)\*\//g)].map((match) => ({
    name: match[1] ?? '',
    kind: (match[1] ?? '').split('_')[0] ?? '',
    // A hover is asked inside the token after its marker.
    offset: match.index + (match[1]?.startsWith('hover') ? match[0].length + 1 : 0),
  }))
}

/** The consumer importing the package at `pkg`, with the edit counter at `n` (one digit: offsets do not move). */
function consumerText(dir: string, pkg: string, n: number): string {
  const from = relative(dir, join(pkg, 'src', 'index.js')).replaceAll('\\', '/')
  return `import type { PortalOAuth } from '${from.startsWith('.') ? from : `./${from}`}'\n${CONSUMER.replace(
    'const edit = 0',
    `const edit = ${n % 10}`,
  )}`
}

/** One timed request. */
interface Sample {
  compiler: string
  pkg: string
  kind: string
  name: string
  /** Wall time, what the request kept the editor waiting. */
  ms: number
  /**
   * TypeScript 5.9 (whose service runs in this process): the main thread's CPU time and the whole process's. The
   * latter also counts V8's collector threads, whose concurrent marking the request does not wait for.
   */
  mainMs?: number
  cpuMs?: number
  /** TypeScript 5.9: the type instantiations the request's checker made (a measure of its work no load moves). */
  instantiations?: number
}

/** What one request took ({@link Sample}'s times) and what came back. */
type Asked = Pick<Sample, 'ms' | 'mainMs' | 'cpuMs' | 'instantiations'> & { answer: string[] }

/** A TypeScript 5.9 language service over one consumer, edited in memory as an editor sends its keystrokes. */
class Service59 {
  readonly #file: string
  readonly #service: ts.LanguageService
  #version = 0
  #text: string

  constructor(
    readonly dir: string,
    readonly pkg: string,
  ) {
    this.#file = join(dir, 'consumer.ts')
    this.#text = consumerText(dir, pkg, 0)
    this.#service = consumerLanguageService(dir, this.#file, () => ({
      version: String(this.#version),
      text: this.#text,
    }))
  }

  /** A keystroke: the edit counter moves, so the next request builds a new program and checker. */
  edit(): void {
    this.#version++
    this.#text = consumerText(this.dir, this.pkg, this.#version)
  }

  /**
   * Asks at `marker`, returns the milliseconds it took (wall time, and the CPU time of the main thread and of the
   * process: the service runs in it) and what came back (entries, or the hover's text).
   */
  ask(marker: Marker): Asked {
    const started = { wall: performance.now(), main: mainThreadCpu(), cpu: process.cpuUsage() }
    const took = (): Pick<Asked, 'ms' | 'mainMs' | 'cpuMs'> => {
      const main = mainThreadCpu(started.main)
      const cpu = process.cpuUsage(started.cpu)
      return {
        ms: performance.now() - started.wall,
        mainMs: (main.user + main.system) / 1000,
        cpuMs: (cpu.user + cpu.system) / 1000,
      }
    }
    if (marker.kind === 'hover') {
      const info = this.#service.getQuickInfoAtPosition(this.#file, marker.offset)
      return {
        ...took(),
        answer: [ts.displayPartsToString(info?.displayParts), ts.displayPartsToString(info?.documentation)],
        instantiations: this.#instantiations(),
      }
    }
    const info = this.#service.getCompletionsAtPosition(this.#file, marker.offset, {
      includeCompletionsForModuleExports: true,
      includeCompletionsWithInsertText: true,
    })
    return {
      ...took(),
      instantiations: this.#instantiations(),
      answer: (info?.entries ?? [])
        .filter((entry) => entry.kind === 'property' || entry.kind === 'string')
        .map((entry) => entry.name),
    }
  }

  /** The type instantiations of the current checker: made since the last edit, which made a new one. */
  #instantiations(): number | undefined {
    // Internal to TypeScript 5 (what `tsc --extendedDiagnostics` prints as "Instantiation count").
    const checker = this.#service.getProgram()?.getTypeChecker() as
      | { getInstantiationCount?: () => number }
      | undefined
    return checker?.getInstantiationCount?.()
  }

  dispose(): void {
    this.#service.dispose()
  }
}

/** TypeScript 7's API over one consumer on disk: each edit is written and announced with a new snapshot. */
class Service7 {
  readonly #file: string
  readonly #api: API
  #version = 0
  #project: ReturnType<ReturnType<API['updateSnapshot']>['getDefaultProjectForFile']>

  constructor(
    readonly dir: string,
    readonly pkg: string,
  ) {
    this.#file = join(dir, 'consumer.ts')
    writeFileSync(this.#file, consumerText(dir, pkg, 0))
    this.#api = new API({ cwd: dir })
    this.#project = this.#api
      .updateSnapshot({ openProjects: [join(dir, 'tsconfig.json')] })
      .getDefaultProjectForFile(this.#file)
  }

  edit(): void {
    this.#version++
    writeFileSync(this.#file, consumerText(this.dir, this.pkg, this.#version))
  }

  /** Asks at `marker`; wall milliseconds (the work is in TypeScript 7's own process), and what came back. */
  ask(marker: Marker): Asked {
    const started = performance.now()
    this.#project = this.#api
      .updateSnapshot({ fileChanges: { changed: [this.#file] } })
      .getDefaultProjectForFile(this.#file)
    let answer: string[] = []
    try {
      // The API has no hover: the type at the position stands for it.
      if (marker.kind === 'hover') {
        const type = this.#project?.checker.getTypeAtPosition(this.#file, marker.offset)
        answer = [String(type?.id)]
      } else {
        const info = this.#project?.checker.getCompletionsAtPosition(this.#file, marker.offset)
        answer = (info?.entries ?? []).map((entry) => entry.name)
      }
    } catch (error) {
      answer = [`throws: ${error instanceof Error ? error.message : String(error)}`]
    }
    return { ms: performance.now() - started, answer }
  }

  dispose(): void {
    this.#api.close()
  }
}

type Service = Service59 | Service7

/** Writes a consumer project for `pkg` and compiler `compiler`, returns its folder. */
function prepare(compiler: string, pkg: string, index: number): string {
  const dir = join(work, `${compiler}-${index}`)
  mkdirSync(dir, { recursive: true })
  writeConsumerProject(dir)
  writeFileSync(join(dir, 'consumer.ts'), consumerText(dir, pkg, 0))
  return dir
}

function open(compiler: string, dir: string, pkg: string): Service {
  return compiler === '7' ? new Service7(dir, pkg) : new Service59(dir, pkg)
}

function quantiles(values: number[]): { min: number; median: number; max: number } {
  const sorted = [...values].sort((a, b) => a - b)
  return {
    min: sorted[0] ?? Number.NaN,
    median: sorted[Math.floor(sorted.length / 2)] ?? Number.NaN,
    max: sorted.at(-1) ?? Number.NaN,
  }
}

const ms = (value: number): string => value.toFixed(0)

/**
 * `items` with their indexes, in order on even turns and reversed on odd ones: what one request leaves behind (its
 * garbage, collected during the next) falls on each package alike.
 */
function inTurn<T>(items: readonly T[], turn: number): Array<[T, number]> {
  const indexed = items.map((item, index): [T, number] => [item, index])
  return turn % 2 === 0 ? indexed : indexed.reverse()
}

async function main(): Promise<number> {
  const pkgs = packages.map((pkg) => resolve(root, pkg))
  for (const pkg of pkgs) {
    if (!existsSync(join(pkg, 'src', 'index.d.ts'))) throw new Error(`${pkg} holds no built package`)
  }
  rmSync(work, { recursive: true, force: true })
  const loadBefore = loadavg()[0] ?? 0
  const samples: Sample[] = []
  const answers = new Map<string, string[]>()
  for (const compiler of compilers) {
    const dirs = pkgs.map((pkg, index) => prepare(compiler, pkg, index))
    // The first request after the project opens: a new service each time (nothing cached but the OS's files).
    const opens = process.env.FIRST === '0' ? 0 : Math.max(3, Math.ceil(rounds / 3))
    for (let round = 0; round < opens; round++) {
      inTurn(pkgs, round).forEach(([pkg, index]) => {
        // Wall time (the opening reads files, and TypeScript 7 runs in its own process), and for TypeScript 5.9
        // the CPU time too, which the machine's other work moves much less.
        const started = performance.now()
        const cpu = process.cpuUsage()
        const service = open(compiler, dirs[index] ?? '', pkg)
        const text = consumerText(dirs[index] ?? '', pkg, 0)
        const first = markers(text).find((marker) => marker.name === 'params_list')
        if (first) service.ask(first)
        samples.push({ compiler, pkg, kind: 'first', name: 'first', ms: performance.now() - started })
        if (compiler !== '7') {
          const { user, system } = process.cpuUsage(cpu)
          samples.push({ compiler, pkg, kind: 'first-cpu', name: 'first-cpu', ms: (user + system) / 1000 })
        }
        service.dispose()
      })
    }
    const services = pkgs.map((pkg, index) => open(compiler, dirs[index] ?? '', pkg))
    try {
      const list = markers(consumerText(dirs[0] ?? '', pkgs[0] ?? '', 0)).filter((marker) =>
        only.test(marker.name),
      )
      // One request first, not kept: the services' lib files are then read.
      for (const service of services) service.ask(list[0] as Marker)
      for (let round = 0; round < rounds; round++) {
        for (const [turn, marker] of list.entries()) {
          inTurn(services, round + turn).forEach(([service, index]) => {
            // Offsets are those of the first package's consumer; another package's path may be longer.
            const shift =
              consumerText(service.dir, service.pkg, 0).length -
              consumerText(dirs[0] ?? '', pkgs[0] ?? '', 0).length
            service.edit()
            const { answer, ...took } = service.ask({ ...marker, offset: marker.offset + shift })
            samples.push({
              compiler,
              pkg: pkgs[index] ?? '',
              kind: marker.kind,
              name: marker.name,
              ...took,
            })
            answers.set(`${compiler} ${relative(root, pkgs[index] ?? '')} ${marker.name}`, answer)
          })
        }
      }
    } finally {
      for (const service of services) service.dispose()
    }
  }
  const loadAfter = loadavg()[0] ?? 0
  console.log(
    `${rounds} samples per position; load average ${loadBefore.toFixed(1)} before, ${loadAfter.toFixed(1)} after`,
  )
  console.log(
    'TypeScript | package | request | wall min | median | max (ms) | main thread CPU median | max | process CPU median | max | instantiations (median)',
  )
  /** `median | max` of `values`, or two empty cells when there are none. */
  const medianMax = (values: number[]): string => {
    if (values.length === 0) return ' | '
    const { median, max } = quantiles(values)
    return `${ms(median)} | ${ms(max)}`
  }
  const present = (values: Array<number | undefined>): number[] =>
    values.filter((value): value is number => value !== undefined)
  for (const compiler of compilers) {
    for (const pkg of pkgs) {
      for (const kind of ['first', 'first-cpu', ...KINDS]) {
        const kept = samples.filter(
          (sample) => sample.compiler === compiler && sample.pkg === pkg && sample.kind === kind,
        )
        if (kept.length === 0) continue
        const { min, median, max } = quantiles(kept.map((sample) => sample.ms))
        const counts = present(kept.map((sample) => sample.instantiations))
        console.log(
          `${compiler} | ${relative(root, pkg)} | ${kind} | ${ms(min)} | ${ms(median)} | ${ms(max)} | ${medianMax(present(kept.map((sample) => sample.mainMs)))} | ${medianMax(present(kept.map((sample) => sample.cpuMs)))} | ${counts.length === 0 ? '' : quantiles(counts).median}`,
        )
      }
    }
  }
  if (process.env.VERBOSE === '1') {
    for (const compiler of compilers) {
      for (const pkg of pkgs) {
        for (const name of new Set(samples.map((sample) => sample.name))) {
          const kept = samples.filter(
            (sample) => sample.compiler === compiler && sample.pkg === pkg && sample.name === name,
          )
          if (kept.length === 0) continue
          const { min, median, max } = quantiles(kept.map((sample) => sample.ms))
          const work =
            kept[0]?.instantiations === undefined ? '' : `, ${kept[0].instantiations} instantiations`
          const answer = answers.get(`${compiler} ${relative(root, pkg)} ${name}`) ?? []
          const shown = answer.join(' / ').slice(0, 160)
          console.log(
            `  ${compiler} ${relative(root, pkg)} ${name}: ${ms(min)} ${ms(median)} ${ms(max)} ms${work} (${answer.length}) ${shown}`,
          )
        }
      }
    }
  }
  if (process.env.KEEP !== '1') rmSync(work, { recursive: true, force: true })
  return 0
}

runMain(main)
