import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))
/** `import … from './x.js'`, `export … from './x.js'` and `import('./x.js')`: the relative ones, types included. */
const IMPORT = /(?:\b(?:import|export)\s[^;]*?\bfrom\s+|\bimport\(\s*)['"](\.[^'"]+)['"]/g

function sources(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.ts') && !file.endsWith('.d.ts'))
    .map((file) => join(ROOT, dir, file))
}

/** Each source file of `dirs` with the source files it imports. */
function importGraph(dirs: readonly string[] = ['src', 'machines']): Map<string, string[]> {
  const graph = new Map<string, string[]>()
  for (const file of dirs.flatMap(sources)) {
    const imported = [...readFileSync(file, 'utf8').matchAll(IMPORT)]
      .map((match) => resolve(dirname(file), match[1]!.replace(/\.js$/, '.ts')))
      .filter((target) => existsSync(target))
    graph.set(relative(ROOT, file), [...new Set(imported.map((target) => relative(ROOT, target)))])
  }
  return graph
}

/** The strongly connected components of more than one file (Tarjan): each is an import cycle. */
function cycles(graph: Map<string, string[]>): string[][] {
  const index = new Map<string, number>()
  const low = new Map<string, number>()
  const stack: string[] = []
  const found: string[][] = []
  const visit = (file: string): void => {
    index.set(file, index.size)
    low.set(file, index.get(file)!)
    stack.push(file)
    for (const next of graph.get(file) ?? []) {
      if (!index.has(next)) {
        visit(next)
        low.set(file, Math.min(low.get(file)!, low.get(next)!))
      } else if (stack.includes(next)) {
        low.set(file, Math.min(low.get(file)!, index.get(next)!))
      }
    }
    if (low.get(file) !== index.get(file)) return
    const component = stack.splice(stack.indexOf(file))
    if (component.length > 1) found.push(component.sort())
  }
  for (const file of graph.keys()) if (!index.has(file)) visit(file)
  return found
}

describe('the import graph of src/ and machines/', () => {
  const graph = importGraph()

  it('reads the imports it checks (static, re-exports, dynamic)', () => {
    expect(graph.get('src/index.ts')).toContain('src/abstract-portal.ts')
    expect(graph.get('src/http/rest-transport.ts')).toContain('src/catalogue/method-table.ts')
    expect(graph.get('src/catalogue/method-table.ts')).toContain('src/catalogue/methods.generated.ts')
  })

  it('has no cycle, type imports included', () => {
    expect(cycles(graph)).toEqual([])
  })

  it('has no arrow up a floor: machines/ below src/, the client below the fleet, scripts/ below bench/', () => {
    const whole = importGraph(['src', 'machines', 'scripts', 'bench'])
    /** What files under `floor` may not import, as path prefixes; `except` may. */
    const rules: Array<{ floor: string; above: readonly string[]; except?: readonly string[] }> = [
      // The machines are the bottom: the client provides them, they never reach into it.
      { floor: 'machines/', above: ['src/', 'scripts/', 'bench/', 'test/'] },
      // The fleet is built on the client; only the main entry point re-exports it.
      { floor: 'src/', above: ['src/fleet/'], except: ['src/fleet/', 'src/index.ts'] },
      { floor: 'src/', above: ['scripts/', 'bench/', 'test/'] },
      // The benchmarks use the scripts' helpers, never the other way round.
      { floor: 'scripts/', above: ['bench/', 'test/'] },
    ]
    const upward = rules.flatMap(({ floor, above, except = [] }) =>
      [...whole]
        .filter(([file]) => file.startsWith(floor) && !except.some((allowed) => file.startsWith(allowed)))
        .flatMap(([file, imported]) =>
          imported
            .filter((target) => above.some((prefix) => target.startsWith(prefix)))
            .map((target) => `${file} -> ${target}`),
        ),
    )
    expect(upward).toEqual([])
  })

  it('has no arrow back up from src/core/', () => {
    const upward = [...graph]
      .filter(([file]) => file.startsWith('src/core/'))
      .flatMap(([file, imported]) =>
        imported.filter((target) => !target.startsWith('src/core/')).map((target) => `${file} -> ${target}`),
      )
    expect(upward).toEqual([])
  })
})
