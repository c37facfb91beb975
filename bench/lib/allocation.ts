import { GCProfiler, getHeapStatistics } from 'node:v8'

/**
 * Heap bytes allocated per call of `call`, over `calls` sequential calls: the garbage a call leaves for V8 to collect,
 * the source of the GC share of its CPU. Read from the used heap before and after each collection V8 ran meanwhile
 * (`v8.GCProfiler`), so it counts what was collected too. Unlike CPU time it does not move with other work on the
 * machine.
 */
export async function allocatedPerCall(call: () => Promise<void>, calls: number): Promise<number> {
  const profiler = new GCProfiler()
  const start = getHeapStatistics().used_heap_size
  profiler.start()
  for (let done = 0; done < calls; done += 1) await call()
  const end = getHeapStatistics().used_heap_size
  let allocated = 0
  let from = start
  for (const gc of profiler.stop().statistics) {
    allocated += gc.beforeGC.heapStatistics.usedHeapSize - from
    from = gc.afterGC.heapStatistics.usedHeapSize
  }
  return (allocated + end - from) / calls
}
