import { spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'

/**
 * Runs `bench/children/<name>.ts` in a fresh Node process with `--expose-gc` (so that a heap figure starts from a
 * clean heap), hands it `input` as JSON and resolves with the JSON it prints last.
 */
export function runChild<T>(name: string, input: unknown): Promise<T> {
  const script = fileURLToPath(new URL(`../children/${name}.ts`, import.meta.url))
  const child = spawn(process.execPath, ['--expose-gc', '--import', 'tsx', script, JSON.stringify(input)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  let output = ''
  child.stdout.setEncoding('utf8')
  child.stdout.on('data', (chunk: string) => {
    output += chunk
  })
  return new Promise((resolve, reject) => {
    child.once('error', reject)
    child.once('exit', (code) => {
      const last = output.trim().split('\n').at(-1) ?? ''
      if (code !== 0) reject(new Error(`bench child ${name} exited with code ${code}: ${last}`))
      else resolve(JSON.parse(last) as T)
    })
  })
}

/** `globalThis.gc`, which `--expose-gc` provides. */
export function requireGc(): () => void {
  const gc = (globalThis as { gc?: () => void }).gc
  if (!gc) throw new Error('run with node --expose-gc')
  return () => {
    gc()
    gc()
  }
}
