/**
 * `npm run catalogue -- <docs checkout>`: reads the REST documentation (github.com/bitrix24/b24restdocs) and writes
 * src/catalogue/methods.generated.ts, src/catalogue/method-types.generated.ts and
 * src/catalogue/result-types.generated.ts, then prints what it could not read and the coverage figures.
 */
import { execFileSync } from 'node:child_process'
import { readFileSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { emitResults, emitTable, emitTypes, resultType } from './emit-catalogue.js'
import { readDocs } from './read-docs.js'

const root = process.argv[2]
if (root === undefined) {
  console.error('usage: npm run catalogue -- <path to a checkout of github.com/bitrix24/b24restdocs>')
  process.exit(2)
}
const started = performance.now()
const docs = resolve(root)
const reading = readDocs(docs)
const source = { commit: docsCommit(docs), license: readFileSync(join(docs, 'LICENSE'), 'utf8') }
const out = resolve(import.meta.dirname, '../../src/catalogue')
writeFileSync(join(out, 'methods.generated.ts'), emitTable(reading.methods, source))
writeFileSync(join(out, 'method-types.generated.ts'), emitTypes(reading.methods, source))
writeFileSync(join(out, 'result-types.generated.ts'), emitResults(reading.methods, source))

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

/** The checkout's commit (a `git archive` extract has none: then its `.commit` file, else `unknown`). */
function docsCommit(dir: string): string {
  try {
    return execFileSync('git', ['-C', dir, 'rev-parse', 'HEAD'], { encoding: 'utf8', stdio: 'pipe' }).trim()
  } catch {
    try {
      return readFileSync(join(dir, '.commit'), 'utf8').trim()
    } catch {
      return 'unknown'
    }
  }
}
