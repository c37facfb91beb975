import { fileURLToPath } from 'node:url'
import { afterEach, describe, expect, it } from 'vitest'
import { PortalOAuth } from '../../src/index.js'
import { type PortalEmulator, startPortalEmulator } from '../../src/testing/index.js'
import { createMemoryLogger, runScriptWithRig } from '../helpers.js'
import { WrongTypeAfterLock } from './wrong-type-store.js'

let emulator: PortalEmulator | undefined
afterEach(async () => {
  await emulator?.close()
  emulator = undefined
})

const entry = fileURLToPath(new URL('../../src/index.ts', import.meta.url))
const storeModule = fileURLToPath(new URL('./wrong-type-store.ts', import.meta.url))

describe('a store whose read fails after it granted the refresh lock', () => {
  it('refreshAuth() rejects with JSSDK_TOKEN_STORE_FAILED naming the failure; nothing rejects unhandled, nothing is refreshed, the lock is given back', async () => {
    const unhandled: unknown[] = []
    const onUnhandled = (reason: unknown): void => {
      unhandled.push(reason)
    }
    process.on('unhandledRejection', onUnhandled)
    try {
      emulator = await startPortalEmulator()
      const store = new WrongTypeAfterLock()
      const portal = new PortalOAuth(
        emulator.issueAuthParams(),
        { clientId: emulator.clientId, clientSecret: emulator.clientSecret },
        { store, logger: createMemoryLogger() },
      )
      const error = await portal.auth.refreshAuth().catch((thrown: unknown) => thrown)
      await portal.destroy()
      expect(error).toMatchObject({ name: 'SdkError', code: 'JSSDK_TOKEN_STORE_FAILED' })
      expect((error as Error).message).toContain('WRONGTYPE')
      expect((error as Error).cause).toBe(store.failure)
      // The pair was not re-read under the lock, so nothing was refreshed.
      expect(emulator.log.refreshRequests()).toHaveLength(0)
      // Given back: another instance takes it at once.
      expect(await store.lock(emulator.memberId, 1_000)).not.toBeNull()
      // A rejection left unhandled is reported once the turn it happened in is over.
      await new Promise((resolve) => setTimeout(resolve, 20))
      expect(unhandled).toEqual([])
    } finally {
      process.off('unhandledRejection', onUnhandled)
    }
  })

  it('a default Node process lives on: refreshAuth() rejects, the script goes on and exits 0', async () => {
    emulator = await startPortalEmulator()
    // Node's default for an unhandled rejection is to end the process with ERR_UNHANDLED_REJECTION.
    const script = `
      import { PortalOAuth } from ${JSON.stringify(entry)}
      import { WrongTypeAfterLock } from ${JSON.stringify(storeModule)}
      const { params, secret } = JSON.parse(process.env.PORTAL_RIG)
      const quiet = { debug() {}, info() {}, warn() {}, error() {} }
      const portal = new PortalOAuth(params, secret, { store: new WrongTypeAfterLock(), logger: quiet })
      const outcome = await portal.auth.refreshAuth().then(() => 'refreshed', (error) => 'rejected ' + error.code)
      await portal.destroy()
      console.log(outcome)
    `
    const { output, code } = await runScriptWithRig(script, emulator)
    expect(output.trim()).toBe('rejected JSSDK_TOKEN_STORE_FAILED')
    expect(code).toBe(0)
    expect(emulator.log.refreshRequests()).toHaveLength(0)
  })
})
