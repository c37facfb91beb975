import { readFile } from 'node:fs/promises'
import { expect, it } from 'vitest'

/** Commands that run the same on Linux, macOS and Windows: Node itself and the binaries of devDependencies. */
const PORTABLE = new Set(['npm', 'npx', 'node', 'tsc', 'tsx', 'biome', 'vitest', 'publint', 'attw'])

it('npm scripts call only portable commands (no rm, cp, mkdir -p or other shell built-ins)', async () => {
  const manifest = JSON.parse(await readFile(new URL('../../package.json', import.meta.url), 'utf8')) as {
    scripts: Record<string, string>
  }
  const shellOnly: string[] = []
  for (const [name, script] of Object.entries(manifest.scripts)) {
    for (const step of script.split(/&&|\|\||[;|]/)) {
      const command = step.trim().split(/\s+/)[0] ?? ''
      if (!PORTABLE.has(command)) shellOnly.push(`${name}: ${command}`)
    }
  }
  expect(shellOnly).toEqual([])
})
