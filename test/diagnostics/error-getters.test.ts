import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { type Rig, startRig } from '../helpers.js'
import { type CapturingLogger, capturingLogger, Observer } from './observe-everything.js'

let rig: Rig
let observer: Observer
let logger: CapturingLogger
beforeEach(async () => {
  observer = new Observer()
  logger = capturingLogger()
  rig = await startRig({ client: { logger } })
})
afterEach(async () => {
  await rig.close()
  await observer.close()
})

/** The tokens the client holds, its client secret and application token. */
function secretsNow(): string[] {
  const params = rig.portal.auth.getParams()
  return [params.accessToken, params.refreshToken, params.applicationToken, rig.emulator.clientSecret]
}

/** A call that needs a refresh, which the custom refresh fails: what the caller gets. */
async function callThatRefreshes(): Promise<unknown> {
  rig.emulator.expireAccessTokens()
  return rig.portal.actions.v2.call.make({ method: 'profile' }).catch((error: unknown) => error)
}

describe('a custom refresh whose error names the refresh token only when read a second time, or from its prototype', () => {
  it('a `code` getter on the prototype: no channel, span, measurement or log line holds the token', async () => {
    const secrets = secretsNow()
    class VaultError extends Error {
      readonly #token: string
      constructor(token: string) {
        super('vault refused')
        this.#token = token
      }
      get code(): string {
        return `REFUSED_${this.#token}`
      }
    }
    let failure: VaultError | undefined
    rig.portal.setCustomRefreshAuth(async ({ refreshToken }) => {
      failure = new VaultError(refreshToken)
      throw failure
    })
    const thrown = await callThatRefreshes()
    // Spec 7: rethrown unchanged, the thrower's own object; what is published comes from its one snapshot.
    expect(thrown).toBe(failure)
    expect(observer.counts.get('portal-oauth:call:error')).toBe(1)
    const everything = await observer.everything(logger)
    expect(everything).toContain('REFUSED_[redacted]')
    for (const secret of secrets) expect(everything).not.toContain(secret)
  })

  it('an own `code` getter that names the token from its second read on: nothing published holds it, the caller gets the same error', async () => {
    const secrets = secretsNow()
    let reads = 0
    const failure = new Error('vault refused')
    rig.portal.setCustomRefreshAuth(async ({ refreshToken }) => {
      Object.defineProperty(failure, 'code', {
        get: () => {
          reads += 1
          return reads === 1 ? 'REFUSED' : `REFUSED_${refreshToken}`
        },
      })
      throw failure
    })
    const thrown = await callThatRefreshes()
    // Spec 7: an Error of the refresh is rethrown unchanged. It was read once, holding no secret then.
    expect(thrown).toBe(failure)
    expect(reads).toBe(1)
    const everything = await observer.everything(logger)
    expect(everything).toContain('REFUSED')
    for (const secret of secrets) expect(everything).not.toContain(secret)
  })
})
