/**
 * Run by `npm run build` after `tsc`: takes out of each JavaScript file under dist/ the doc comments that the
 * declaration file beside it (`x.d.ts` of `x.js`) carries word for word, which the package shipped twice (45 kB of
 * the tarball, README.md). Their lines stay, empty, so that a stack trace's line numbers do not move; the doc comments no
 * declaration carries (module-internal functions, private members) and every other comment stay.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { withoutRepeatedDocComments } from './repeated-doc-comments.js'

const dist = join(import.meta.dirname, '..', '..', 'dist')
let dropped = 0
for (const file of readdirSync(dist, { recursive: true, encoding: 'utf8' })) {
  // The command line's declarations do not ship (package.json "files"): its JavaScript keeps its doc comments.
  if (!file.endsWith('.js') || file.startsWith(join('src', 'cli'))) continue
  const declarations = join(dist, file.replace(/\.js$/, '.d.ts'))
  if (!existsSync(declarations)) continue
  const path = join(dist, file)
  const text = readFileSync(path, 'utf8')
  const kept = withoutRepeatedDocComments(text, readFileSync(declarations, 'utf8'))
  dropped += text.length - kept.length
  writeFileSync(path, kept)
}
console.log(`doc comments the declarations carry, taken out of the JavaScript: ${dropped} characters`)
