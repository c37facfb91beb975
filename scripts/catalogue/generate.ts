/**
 * `npm run catalogue -- <docs checkout> [--commit <sha>]`: reads the REST documentation
 * (github.com/bitrix24/b24restdocs) and writes
 * src/catalogue/methods.generated.ts, src/catalogue/method-types.generated.ts and
 * src/catalogue/result-types.generated.ts and src/catalogue/answers.generated.ts (the emulator's seeds), then prints what it could not read and the coverage figures.
 */
import { execFileSync } from 'node:child_process'
import { readFileSync, realpathSync, writeFileSync } from 'node:fs'
import { basename, join, resolve } from 'node:path'
import { parseArgs } from 'node:util'
import { emitAnswers } from './emit-answers.js'
import { emitResults, emitTable, emitTypes, resultType } from './emit-catalogue.js'
import { readDocs } from './read-docs.js'

const USAGE =
  'usage: npm run catalogue -- <checkout or extract of github.com/bitrix24/b24restdocs> [--commit <40-hex commit>]'
const { values, positionals } = parseArgs({ allowPositionals: true, options: { commit: { type: 'string' } } })
const root = positionals[0]
if (root === undefined || positionals.length > 1) {
  console.error(USAGE)
  process.exit(2)
}
const started = performance.now()
const docs = resolve(root)
const commit = values.commit ?? docsCommit(docs)
if (commit === undefined || !/^[0-9a-f]{40}$/.test(commit)) {
  // The commit is in the header of every generated file: without it they would differ from a checkout's.
  console.error(
    `${docs}: cannot tell the docs commit (no git checkout, no .commit file, no b24restdocs-<commit> folder name)${values.commit === undefined ? '' : `, and --commit ${values.commit} is no 40-hex commit`}; give it with --commit. Nothing written.\n${USAGE}`,
  )
  process.exit(2)
}
const reading = readDocs(docs)
const source = { commit, license: readFileSync(join(docs, 'LICENSE'), 'utf8') }
const out = resolve(import.meta.dirname, '../../src/catalogue')
writeFileSync(join(out, 'methods.generated.ts'), emitTable(reading.methods, source))
writeFileSync(join(out, 'method-types.generated.ts'), emitTypes(reading.methods, source))
writeFileSync(join(out, 'result-types.generated.ts'), emitResults(reading.methods, source))
writeFileSync(join(out, 'answers.generated.ts'), emitAnswers(reading.methods, source))

for (const problem of reading.problems) console.log(`not read: ${problem.page}: ${problem.reason}`)
for (const page of reading.duplicates) console.log(`duplicate (skipped): ${page}`)
const typed = reading.methods.filter((method) => method.params !== null)
const withRows = typed.filter((method) => (method.params?.length ?? 0) > 0)
const failedRows = reading.problems.filter((problem) => problem.reason.startsWith('row')).length
const count = (version: string) => reading.methods.filter((method) => method.version === version).length
console.log(
  [
    `pages read: ${reading.pages}`,
    `methods found: ${reading.methods.length} (v2 ${count('v2')}, v3 ${count('v3')})`,
    `methods with typed parameters: ${typed.length} (${withRows.length} with a parameter table, ${typed.length - withRows.length} that take none)`,
    `methods without a parameter table (params: Record<string, unknown>): ${reading.methods.length - typed.length}`,
    `deprecated: ${reading.methods.filter((method) => method.deprecatedBy !== undefined).length}`,
    `methods with a result type: ${reading.methods.filter((method) => resultType(method) !== undefined).length} (${reading.methods.filter((method) => method.result !== undefined && 'shape' in method.result && resultType(method) !== undefined).length} from an example answer)`,
    `parameter rows read: ${reading.rows} (${reading.untypedRows} without a type, typed unknown), rows not read: ${failedRows}`,
    `pages not read: ${reading.problems.length - failedRows}`,
    `time: ${Math.round(performance.now() - started)} ms`,
  ].join('\n'),
)

/**
 * The docs commit of `dir`: a git checkout's HEAD, else its `.commit` file, else the commit in the folder's name (a
 * GitHub tarball extracts to `b24restdocs-<commit>`); undefined when none says.
 */
function docsCommit(dir: string): string | undefined {
  try {
    const git = (...args: string[]) =>
      execFileSync('git', ['-C', dir, ...args], { encoding: 'utf8', stdio: 'pipe' }).trim()
    // Only a checkout of its own: an extract inside another repository would give that one's commit.
    if (resolve(git('rev-parse', '--show-toplevel')) !== realpathSync(dir)) throw new Error('not a checkout')
    return git('rev-parse', 'HEAD')
  } catch {
    try {
      return readFileSync(join(dir, '.commit'), 'utf8').trim()
    } catch {
      return /-([0-9a-f]{40})$/.exec(basename(dir))?.[1]
    }
  }
}
