import { afterEach, describe, expect, it } from 'vitest'
import { AjaxError, PortalHook } from '../../src/index.js'
import { startPortalEmulator } from '../../src/testing/index.js'
import { FAST_CLIENT } from '../actions/fast-rig.js'
import { createMemoryLogger } from '../helpers.js'

const cleanups: Array<() => Promise<void>> = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

/** Everything an error exposes: message, stack, JSON and the cause chain. */
function errorText(error: unknown): string {
  const parts: string[] = []
  let current: unknown = error
  for (let depth = 0; depth < 5 && current !== undefined && current !== null; depth += 1) {
    if (current instanceof Error) parts.push(current.message, current.stack ?? '', JSON.stringify(current))
    else parts.push(String(current))
    current = current instanceof Error ? current.cause : undefined
  }
  return parts.join('\n')
}

async function startHook(): Promise<{
  hook: PortalHook
  secret: string
  logger: ReturnType<typeof createMemoryLogger>
  emulator: Awaited<ReturnType<typeof startPortalEmulator>>
}> {
  const emulator = await startPortalEmulator({ rateLimit: false })
  const url = emulator.createWebhook()
  const secret = url.split('/').at(-2) ?? ''
  const logger = createMemoryLogger()
  const hook = PortalHook.fromWebhookUrl(url, {
    logger,
    restrictionParams: { ...FAST_CLIENT, maxRetries: 1 },
    // Room for a first, cold request on a loaded machine; the delayed one below outlasts it.
    httpOptions: { timeout: 1_000 },
  })
  cleanups.push(
    () => emulator.close(),
    () => hook.destroy(),
  )
  return { hook, secret, logger, emulator }
}

describe('PortalHook: the webhook secret never reaches a log line or an error', () => {
  it('debug logs, REST errors, timeouts, resets and refused connections stay clean', async () => {
    const { hook, secret, logger, emulator } = await startHook()
    expect(secret).toMatch(/^[a-z0-9]{16}$/)
    const failures: unknown[] = []

    // A REST-level error: the portal refuses the method.
    const refused = await hook.actions.v2.call.make({ unchecked: true, method: 'no.such.method' })
    expect(refused.isSuccess).toBe(false)
    failures.push(...refused.getErrors())
    // A timeout: ky's own message names the whole URL, secret included.
    emulator.delayRequests(3_000, 2, { method: 'server.time' })
    failures.push(await hook.actions.v2.call.make({ method: 'server.time' }).catch((error: unknown) => error))
    // A reset after the body was read, on a write that is not retried.
    emulator.dropConnections(1, { method: 'crm.item.add' })
    failures.push(
      await hook.actions.v2.call
        .make({ unchecked: true, method: 'crm.item.add', params: { fields: { title: 'x' } } })
        .catch((error: unknown) => error),
    )
    // Batches and lists go through the same transport.
    failures.push(
      ...(await hook.actions.v2.batch.make({ calls: [['no.such.method']], unchecked: true })).getErrors(),
    )
    failures.push(
      ...(await hook.actions.v3.callList.make({ method: 'no.such.list', unchecked: true })).getErrors(),
    )
    // The portal is gone: the connection is refused.
    await emulator.close()
    failures.push(
      await hook.actions.v3.call.make({ method: 'tasks.task.list' }).catch((error: unknown) => error),
    )
    failures.push(await hook.tools.ping.make().catch((error: unknown) => error))
    expect(await hook.tools.healthCheck.make()).toBe(false)

    const thrown = failures.filter((error) => error instanceof AjaxError)
    expect(thrown.map((error) => (error as AjaxError).code).sort()).toEqual([
      'NETWORK_ERROR',
      'NETWORK_ERROR',
      'NETWORK_ERROR',
      'REQUEST_TIMEOUT',
    ])
    for (const failure of failures) expect(errorText(failure)).not.toContain(secret)
    expect(logger.lines.length).toBeGreaterThan(0)
    expect(logger.lines.some((line) => line.level === 'debug')).toBe(true)
    expect(JSON.stringify(logger.lines)).not.toContain(secret)
  })
})
