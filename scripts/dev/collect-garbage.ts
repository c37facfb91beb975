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
