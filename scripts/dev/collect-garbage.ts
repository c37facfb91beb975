import { getHeapSpaceStatistics } from 'node:v8'

/**
 * Full collections with a pause after each: what a collection finds only through a `FinalizationRegistry` (undici's
 * fetch requests, Node's abort signals) is freed once its callbacks ran, in a task after the collection. For the heap
 * figures of the tests, the bench and `npm run load:fleet`.
 */
export async function collectWithFinalizers(gc: () => void): Promise<void> {
  for (let round = 0; round < 4; round += 1) {
    gc()
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
  gc()
}

/** The spaces where V8 keeps compiled code and its metadata (bytecode, deoptimization data), which it manages itself. */
const CODE_SPACES = new Set([
  'code_space',
  'code_large_object_space',
  'trusted_space',
  'trusted_large_object_space',
])

/** Bytes in use in V8's code spaces: code it compiled (and may drop) on its own, not data a program holds. */
export function codeSpaceBytes(): number {
  return getHeapSpaceStatistics()
    .filter((space) => CODE_SPACES.has(space.space_name))
    .reduce((sum, space) => sum + space.space_used_size, 0)
}
