/**
 * Starts calls at a steady rate: call `j` at `j * intervalMs / callsPerInterval` ms from the start, until
 * `durationMs`, without waiting for earlier calls to settle (a slow portal does not slow the others). A process
 * that falls behind starts every call that is due at once.
 */
export async function runSchedule(options: {
  callsPerInterval: number
  intervalMs: number
  durationMs: number
  /** Starts call `index`; the schedule waits for every call before it resolves. */
  call: (index: number) => Promise<void>
}): Promise<void> {
  const { callsPerInterval, intervalMs, durationMs, call } = options
  const spacingMs = intervalMs / callsPerInterval
  const total = Math.ceil(durationMs / spacingMs)
  const started = performance.now()
  const running = new Set<Promise<void>>()
  let next = 0
  await new Promise<void>((resolve) => {
    const tick = (): void => {
      const elapsed = performance.now() - started
      while (next < total && next * spacingMs <= elapsed) {
        const promise = call(next).finally(() => running.delete(promise))
        running.add(promise)
        next += 1
      }
      if (next >= total) resolve()
      else setTimeout(tick, Math.max(0, next * spacingMs - (performance.now() - started)))
    }
    tick()
  })
  while (running.size > 0) await Promise.all([...running])
}
