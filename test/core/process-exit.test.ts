import { fileURLToPath } from 'node:url'
import { afterEach, expect, it } from 'vitest'
import { type PortalEmulator, startPortalEmulator } from '../../src/testing/index.js'
import { runScriptWithRig } from '../helpers.js'

let emulator: PortalEmulator
afterEach(async () => {
  await emulator?.close()
})

const entry = fileURLToPath(new URL('../../src/index.ts', import.meta.url))

it('a script that makes one call and never calls destroy() exits by itself', async () => {
  emulator = await startPortalEmulator()
  const script = `
    import { PortalOAuth } from ${JSON.stringify(entry)}
    const { params, secret } = JSON.parse(process.env.PORTAL_RIG)
    const portal = new PortalOAuth(params, secret)
    const result = await portal.actions.v2.call.make({ method: 'profile' })
    await portal.auth.refreshAuth()
    console.log(result.isSuccess ? 'called' : 'failed')
  `
  const { output, code } = await runScriptWithRig(script, emulator)
  expect(output.trim()).toBe('called')
  expect(code).toBe(0)
  expect(emulator.log.refreshRequests()).toHaveLength(1)
})
