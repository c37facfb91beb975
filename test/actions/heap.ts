import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import { codeSpaceBytes, collectWithFinalizers } from '../../scripts/dev/collect-garbage.js'

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

/**
 * {@link forceGc}, or the test skipped, saying why: without a full collection the heap cannot be measured. `undefined`
 * only once the test is skipped.
 */
export function gcOrSkip(context: { skip(note?: string): void }): (() => void) | undefined {
  const gc = forceGc()
  if (!gc) context.skip('no gc() available (run node with --expose-gc); the heap cannot be measured reliably')
  return gc
}

/** Heap in use after a full collection, bytes. */
export function settledHeap(gc: () => void): number {
  gc()
  gc()
  return process.memoryUsage().heapUsed
}

/**
 * Heap in use after full collections with a pause between them, bytes: what undici and Node's abort signals release
 * through a `FinalizationRegistry` is freed only once its callbacks ran, in a task after a collection.
 */
export async function settledHeapAfterFinalizers(gc: () => void): Promise<number> {
  await collectWithFinalizers(gc)
  return process.memoryUsage().heapUsed
}

/**
 * Data in use after full collections with pauses between them, bytes: {@link settledHeapAfterFinalizers} without V8's
 * code spaces, which grow when V8 optimizes a path that has run often, not with what the program holds.
 */
export async function settledDataHeap(gc: () => void): Promise<number> {
  await collectWithFinalizers(gc)
  return process.memoryUsage().heapUsed - codeSpaceBytes()
}
