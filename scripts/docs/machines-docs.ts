/**
 * `npm run docs:machines`: writes `docs/machines/*.md` (Mermaid diagram, states, transitions) from the machine
 * definitions in `machines/`.
 * @module
 */
import { mkdir, writeFile } from 'node:fs/promises'
import { dirname, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { renderMachineDocs } from './machines-docs-lib.js'

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..')

for (const file of renderMachineDocs()) {
  const target = resolve(root, file.path)
  await mkdir(dirname(target), { recursive: true })
  await writeFile(target, file.content)
  console.log(`wrote ${file.path}`)
}
