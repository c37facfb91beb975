// Run by `npm run build` after tsc: removes the source maps of the generated catalogue files from dist/ (and the
// comments pointing to them). Those maps carry the whole generated source again (inlineSources) and map nothing
// worth stepping through: a data table and modules of types only. They were over a third of the packed package.
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

const dir = join(import.meta.dirname, '../../dist/src/catalogue')
for (const file of readdirSync(dir).filter((name) => /\.generated\.js$/.test(name))) {
  rmSync(join(dir, `${file}.map`), { force: true })
  const path = join(dir, file)
  writeFileSync(path, readFileSync(path, 'utf8').replace(/\n\/\/# sourceMappingURL=\S+\s*$/, '\n'))
}
