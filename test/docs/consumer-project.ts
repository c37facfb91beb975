/**
 * A throwaway application that holds the documentation's snippets: `portal-oauth` built from this repository's
 * sources into its node_modules, every snippet a file of its own, type-checked by one `tsc` run per kind (whole
 * programs, fragments) under strict settings, and each runnable one run by Node in a process of its own.
 */
import { execFile } from 'node:child_process'
import { copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { join, relative } from 'node:path'
import { promisify } from 'node:util'
import { CONSUMER_COMPILER_OPTIONS } from '../../scripts/dev/consumer-compiler-options.js'
import type { Snippet } from './markdown-snippets.js'

const run = promisify(execFile)

/** How one run of a snippet ended. */
export interface SnippetRun {
  /** The exit code, or null when the process was killed. */
  readonly exitCode: number | null
  /** True when the process had not ended within the time limit. */
  readonly timedOut: boolean
  readonly stdout: string
  /** Standard error, with the snippet's own file and line rewritten to the Markdown file and line. */
  readonly stderr: string
}

/** A `tsc` diagnostic, placed in the documentation when it is about a snippet. */
export interface TypeDiagnostic {
  /** The snippet it is about, if any (otherwise the consumer project's own files or a library's types). */
  readonly snippet: Snippet | undefined
  /** `README.md:47:5 TS2304 Cannot find name 'x'.` */
  readonly message: string
}

/** The throwaway application holding every snippet. */
export class ConsumerProject {
  readonly #dir: string
  readonly #vitest: string
  readonly #files = new Map<Snippet, string>()

  private constructor(dir: string, root: string) {
    this.#dir = dir
    this.#vitest = join(root, 'node_modules', 'vitest', 'vitest.mjs')
  }

  /**
   * Creates the application under `<root>/.tmp/` (so that Node and TypeScript find the repository's node_modules
   * above it), builds `portal-oauth` into its node_modules and writes every snippet.
   */
  static async create(root: string, snippets: readonly Snippet[]): Promise<ConsumerProject> {
    await mkdir(join(root, '.tmp'), { recursive: true })
    const project = new ConsumerProject(await mkdtemp(join(root, '.tmp', 'docs-snippets-')), root)
    await project.#build(root)
    await project.#write(root, snippets)
    return project
  }

  /** Type-checks every snippet: one `tsc` for the whole programs, one for the fragments, side by side. */
  async typeCheck(root: string): Promise<TypeDiagnostic[]> {
    const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc')
    const outputs = await Promise.all(
      ['tsconfig.whole.json', 'tsconfig.fragments.json'].map((config) =>
        run(process.execPath, [tsc, '-p', config], { cwd: this.#dir, maxBuffer: 1 << 26 }).then(
          () => '',
          (error: { stdout?: string }) => error.stdout ?? String(error),
        ),
      ),
    )
    return this.#placeDiagnostics(outputs.join('\n'))
  }

  /**
   * Runs one compiled snippet with Node: a whole program alone, a test file (it imports `vitest`) with `vitest run`,
   * a fragment through the runner that defines the context's names first and closes them after. It must end by
   * itself within `timeoutMs`.
   */
  async run(snippet: Snippet, env: Record<string, string>, timeoutMs: number): Promise<SnippetRun> {
    const source = this.#path(snippet)
    const compiled = join('out', source.replace(/\.ts$/, '.js'))
    const args = snippet.flags.has('fragment')
      ? ['--enable-source-maps', join('out', 'context', 'run-fragment.js'), compiled]
      : isTestFile(snippet)
        ? [this.#vitest, 'run', compiled]
        : ['--enable-source-maps', compiled]
    // The vitest running this test must not leak into the vitest a test file runs with.
    const inherited = Object.fromEntries(
      Object.entries(process.env).filter(([name]) => !/^(VITEST|TEST$|NODE_ENV$)/.test(name)),
    )
    const outcome = await run(process.execPath, args, {
      cwd: this.#dir,
      env: { ...inherited, ...env },
      timeout: timeoutMs,
      killSignal: 'SIGKILL',
      maxBuffer: 1 << 24,
    }).then(
      ({ stdout, stderr }) => ({ exitCode: 0, killed: false, stdout, stderr }),
      (error: { code?: number | string; killed?: boolean; stdout?: string; stderr?: string }) => ({
        exitCode: typeof error.code === 'number' ? error.code : null,
        killed: error.killed === true,
        stdout: error.stdout ?? '',
        stderr: error.stderr ?? String(error),
      }),
    )
    const name = source.split('/').at(-1) ?? source
    // A stack line names the snippet's file and line (source maps); say where that is in the documentation.
    const stderr = outcome.stderr.replace(
      new RegExp(`[^\\s(]*${escapeRegExp(name)}:(\\d+)`, 'g'),
      (_all, line: string) => `${snippet.file}:${snippet.line + Number(line) - 1}`,
    )
    return { exitCode: outcome.exitCode, timedOut: outcome.killed, stdout: outcome.stdout, stderr }
  }

  /** Removes the application. */
  async remove(): Promise<void> {
    await rm(this.#dir, { recursive: true, force: true })
  }

  /** The package as a consumer installs it: its package.json and its build, nothing else. */
  async #build(root: string): Promise<void> {
    const installed = join(this.#dir, 'node_modules', 'portal-oauth')
    await mkdir(installed, { recursive: true })
    await copyFile(join(root, 'package.json'), join(installed, 'package.json'))
    const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc')
    await run(
      process.execPath,
      [tsc, '-p', join(root, 'tsconfig.build.json'), '--outDir', join(installed, 'dist')],
      {
        cwd: root,
        maxBuffer: 1 << 26,
      },
    )
  }

  async #write(root: string, snippets: readonly Snippet[]): Promise<void> {
    await writeFile(
      join(this.#dir, 'package.json'),
      JSON.stringify({ name: 'docs-snippets', private: true, type: 'module' }),
    )
    // Test files among the snippets run with vitest, on their compiled JavaScript.
    await writeFile(
      join(this.#dir, 'vitest.config.mjs'),
      "export default { test: { include: ['out/whole/*.js'], testTimeout: 15000 } }\n",
    )
    await mkdir(join(this.#dir, 'whole'))
    await mkdir(join(this.#dir, 'fragments'))
    await mkdir(join(this.#dir, 'context'))
    const consumer = join(root, 'test', 'docs', 'consumer')
    for (const file of ['globals.d.ts', 'context.ts', 'run-fragment.ts']) {
      await writeFile(join(this.#dir, 'context', file), await readFile(join(consumer, file), 'utf8'))
    }
    for (const snippet of snippets) {
      const kind = snippet.flags.has('fragment') ? 'fragments' : 'whole'
      const path = `${kind}/${snippet.file.replace(/[^A-Za-z0-9]+/g, '-')}-L${snippet.line}.ts`
      this.#files.set(snippet, path)
      await writeFile(join(this.#dir, path), snippet.code)
    }
    const config = (files: string[]) =>
      JSON.stringify({ compilerOptions: CONSUMER_COMPILER_OPTIONS, files }, null, 2)
    const of = (kind: string) => [...this.#files.values()].filter((path) => path.startsWith(`${kind}/`))
    await writeFile(join(this.#dir, 'tsconfig.whole.json'), config(of('whole')))
    await writeFile(
      join(this.#dir, 'tsconfig.fragments.json'),
      config(['context/globals.d.ts', 'context/context.ts', 'context/run-fragment.ts', ...of('fragments')]),
    )
  }

  #path(snippet: Snippet): string {
    const path = this.#files.get(snippet)
    if (path === undefined) throw new Error(`${snippet.file}:${snippet.line} is not in the project`)
    return path
  }

  #placeDiagnostics(output: string): TypeDiagnostic[] {
    const byPath = new Map([...this.#files].map(([snippet, path]) => [path, snippet]))
    const errors: TypeDiagnostic[] = []
    for (const line of output.split('\n')) {
      const diagnostic = /^(.+?)\((\d+),(\d+)\): error (TS\d+): (.*)$/.exec(line)
      if (diagnostic) {
        const [, path = '', row = '0', column = '0', code = '', text = ''] = diagnostic
        const snippet = byPath.get(relative(this.#dir, join(this.#dir, path)).split('\\').join('/'))
        const where = snippet
          ? `${snippet.file}:${snippet.line + Number(row) - 1}:${column}`
          : `${path}:${row}:${column}`
        errors.push({ snippet, message: `${where} ${code} ${text}` })
      } else if (/^\s/.test(line) && line.trim() !== '' && errors.length > 0) {
        // The indented lines that continue the diagnostic above (the elaboration of a type mismatch).
        const last = errors.pop()
        if (last) errors.push({ snippet: last.snippet, message: `${last.message}\n${line}` })
      } else if (line.trim() !== '') {
        errors.push({ snippet: undefined, message: line })
      }
    }
    return errors
  }
}

/** A snippet that imports vitest is a test file. */
export function isTestFile(snippet: Snippet): boolean {
  return /from\s+['"]vitest['"]/.test(snippet.code)
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
}
