import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'

/**
 * A way to force a full garbage collection: `global.gc` when node runs with `--expose-gc`, otherwise the same
 * function taken from a fresh context after turning the flag on at run time. `undefined` when neither works.
 */
export function forceGc(): (() => void) | undefined {
  const exposed = (globalThis as { gc?: () => void }).gc
  if (typeof exposed === 'function') return exposed
  try {
    setFlagsFromString('--expose-gc')
    const gc = runInNewContext('gc') as unknown
    return typeof gc === 'function' ? (gc as () => void) : undefined
  } catch {
    return undefined
  }
}

/** Heap in use after a full collection, bytes. */
export function settledHeap(gc: () => void): number {
  gc()
  gc()
  return process.memoryUsage().heapUsed
}
