import { afterEach, describe, expect, it } from 'vitest'
import { AjaxError, type FetchLike } from '../../src/index.js'
import { type Rig, startRig } from '../helpers.js'

let rig: Rig
afterEach(async () => {
  await rig?.close()
})

/**
 * An adapter (`httpOptions.adapter`) whose first attempt reads the request's body and then fails as a network layer
 * fails, `fetch failed` with a coded cause, and whose later attempts go to the emulator: what the client makes of
 * each code is whether it sends again (with a body still unread).
 */
function failingOnce(code: string): { adapter: FetchLike; attempts: () => number } {
  let attempts = 0
  const adapter: FetchLike = async (input, init) => {
    attempts += 1
    const request = new Request(input, init)
    if (attempts > 1) return globalThis.fetch(request)
    await request.text()
    throw new TypeError('fetch failed', { cause: Object.assign(new Error(code), { code }) })
  }
  return { adapter, attempts: () => attempts }
}

async function start(adapter: FetchLike): Promise<Rig> {
  return startRig({ client: { httpOptions: { adapter }, restrictionParams: { retryDelay: 1 } } })
}

/** A write the catalogue does not know: only the code of its failure can make it safe to send again. */
const WRITE = 'portaltest.item.add'

// The codes are written out here, not read from the client: a test that took the client's own lists would pass
// whatever they held.
describe('what a failed attempt says about sending again', () => {
  it.each([
    'ECONNREFUSED',
    'ENOTFOUND',
    'EAI_AGAIN',
    'EHOSTUNREACH',
    'ENETUNREACH',
    'UND_ERR_CONNECT_TIMEOUT',
  ])('%s: the request never left, so even a write is sent again', async (code) => {
    const failing = failingOnce(code)
    rig = await start(failing.adapter)
    await rig.portal.actions.v2.call.make({ unchecked: true, method: WRITE, params: { fields: {} } })
    expect(failing.attempts()).toBe(2)
    expect(rig.emulator.log.restRequests().map((entry) => entry.restMethod)).toEqual([WRITE])
  })

  it.each([
    'UND_ERR_INVALID_ARG',
    'UND_ERR_NOT_SUPPORTED',
    'ERR_INVALID_CHAR',
    'ERR_INVALID_HTTP_TOKEN',
    'ERR_HTTP_INVALID_HEADER_VALUE',
    'ERR_INVALID_ARG_TYPE',
    'ERR_INVALID_ARG_VALUE',
    'ERR_INVALID_URL',
    'ERR_OUT_OF_RANGE',
  ])('%s: refused on this host, so even a read is not sent again, and the error says so', async (code) => {
    const failing = failingOnce(code)
    rig = await start(failing.adapter)
    const error = await rig.portal.actions.v2.call
      .make({ method: 'profile' })
      .catch((thrown: unknown) => thrown)
    expect(error).toBeInstanceOf(AjaxError)
    expect(error).toMatchObject({
      code: 'NETWORK_ERROR',
      message: `v2 profile: refused before sending (${code})`,
    })
    expect(failing.attempts()).toBe(1)
    expect(rig.emulator.log.restRequests()).toEqual([])
  })
})
