/**
 * The ways of making the CPU figure's call (`npm run bench`) that `npm run bench:profile` profiles too: the client,
 * a raw `undici.request` floor, ky alone with the client's options, the vendor's SDK.
 */
import { readFileSync } from 'node:fs'
import ky from 'ky'
import type ky1 from 'ky1'
import type { PortalOAuth } from '../../src/index.js'
import type { EmulatorAuthParams } from '../../src/testing/index.js'
import { USER_AGENT } from '../../src/version.js'
import type { CpuVariant } from './cpu.js'
import { adapter, lib, retryClone } from './package.js'
import { rawPostVariant } from './raw-floor.js'
import { type BenchRig, UNPACED } from './rig.js'
import { VENDOR_PACKAGE, VENDOR_VERSION, type VendorSdk } from './vendor.js'

/** The call every variant makes: small parameters, small answer, so the client's own cost is not hidden. */
export const METHOD = 'crm.item.get'
export const PARAMS = { entityTypeId: 2, id: 1 }
/** Calls at once in the concurrent mode, and the pool size of the variants that keep their own. */
export const CONCURRENCY = 32

/** `call.make` of `portal`, unchecked (the method is the variants' own). */
export function clientVariant(name: string, portal: PortalOAuth): CpuVariant {
  return {
    name,
    call: async () => {
      const result = await portal.actions.v2.call.make({ unchecked: true, method: METHOD, params: PARAMS })
      if (!result.isSuccess) throw new Error(`${name}: ${result.getErrorMessages().join('; ')}`)
    },
    close: () => portal.destroy(),
  }
}

/** A raw `undici.request` POST of the body the client sends, over an `Agent` with its pool settings: the floor. */
export function rawVariant(pair: EmulatorAuthParams, method = METHOD, params: object = PARAMS): CpuVariant {
  return rawPostVariant(
    `${pair.clientEndpoint}${method}`,
    JSON.stringify({ ...params, auth: pair.accessToken }),
  )
}

/**
 * ky over the default adapter with the options the client gives it, and nothing else: what the client costs without
 * its own code. Like the client, it builds the JSON body per call and sends the client's headers (user agent
 * included), a `beforeRequest` hook, POST as the instance's method, the same retry settings (a fresh object per call,
 * `shouldRetry` a closure over the call, as the client's is) and, with the side channels, the body and the headers
 * beside the `Request` and the answer back in the same holder (the call in ky's `context` without them); it parses
 * the answer.
 */
export function kyVariant(
  pair: EmulatorAuthParams,
  sideChannels = true,
  kyModule: KyModule = ky,
  label?: string,
): CpuVariant {
  const pool = adapter.createPooledFetch({
    connections: CONCURRENCY,
    keepAliveTimeout: 4_000,
    maxAnswerBytes: 128 * 1024 * 1024,
  })
  const headers = { 'content-type': 'application/json', accept: 'application/json', 'user-agent': USER_AGENT }
  // ky 1 and ky 2 take the same options for this request shape; the hook ignores its arguments in both.
  const client = (kyModule as typeof ky).create({
    fetch: pool.fetch,
    method: 'post',
    timeout: 30_000,
    throwHttpErrors: (status) => status === 429 || status === 503,
    ...(sideChannels ? {} : { headers }),
    hooks: {
      // As the client's hook: no clone per attempt of a body-less request (ky 2 passes a state object, ky 1 the request).
      beforeRequest: [
        async (state: Request | { request: Request }) => {
          retryClone.shareBodylessRequest(state instanceof Request ? state : state.request)
        },
      ],
    },
  })
  const url = `${pair.clientEndpoint}${METHOD}`
  const methods = ['post']
  // The client's delay: doubling, its jitter and the 5-minute limit in one function.
  const delay = (attempt: number): number =>
    Math.min(300_000, 1_000 * 2 ** (attempt - 1) * (1 + Math.random() / 4))
  return {
    name:
      label ??
      (sideChannels
        ? 'ky.post over the default adapter, no client code'
        : 'the same, body and answer through ky (no side channels)'),
    call: async () => {
      const call = { retried: false }
      const body = JSON.stringify({ ...PARAMS, auth: pair.accessToken })
      const retry = { limit: 3, methods, delay, shouldRetry: async () => call.retried }
      const holder = { text: body, headers, answer: undefined as string | undefined, call }
      const response = await client(
        url,
        sideChannels
          ? ({ [adapter.RAW_BODY_OPTION]: holder, retry } as Parameters<typeof client>[1])
          : { body, context: { call }, retry },
      )
      const text = sideChannels ? (holder.answer ?? '') : await response.text()
      const payload = JSON.parse(text) as { result?: unknown }
      if (response.status !== 200 || payload.result === undefined) throw new Error('ky call failed')
    },
    close: () => pool.close(),
  }
}

/** ky 2 (the dependency) or ky 1 (the `ky1` dev dependency alias), for the figure that compares them. */
export type KyModule = typeof ky | typeof ky1

/** The installed version of ky 1 or ky 2, for the row names. */
export function kyVersion(name: 'ky' | 'ky1'): string {
  // ky's exports do not list package.json: read it where npm installs it.
  const manifest = new URL(`../../node_modules/${name}/package.json`, import.meta.url)
  return (JSON.parse(readFileSync(manifest, 'utf8')) as { version: string }).version
}

/**
 * The call of the comparison with the vendor's SDK: `profile` (no parameters), each side's limiter unpaced and its
 * adaptive limits off, so that what is compared is the call and not the pacing either side adds.
 */
export const VENDOR_METHOD = 'profile'
/** The restriction params of both sides of that comparison. */
export const UNPACED_NOT_ADAPTIVE = {
  ...UNPACED,
  adaptiveConfig: { ...lib.ParamsFactory.getDefault().adaptiveConfig, enabled: false },
}

/** `call.make` of `profile` through `portal` (built with {@link UNPACED_NOT_ADAPTIVE}): ours in that comparison. */
export function clientProfileVariant(portal: PortalOAuth): CpuVariant {
  const name = `call.make ${VENDOR_METHOD}, adaptive limits off`
  return {
    name,
    call: async () => {
      const result = await portal.actions.v2.call.make({ method: VENDOR_METHOD })
      if (!result.isSuccess) throw new Error(`${name}: ${result.getErrorMessages().join('; ')}`)
    },
    close: () => portal.destroy(),
  }
}

/** The vendor's `B24OAuth` making the same `profile` call on a fresh pair of the same emulator (see above). */
export async function vendorVariant(rig: BenchRig, sdk: VendorSdk): Promise<CpuVariant> {
  const secret = { clientId: rig.emulator.clientId, clientSecret: rig.emulator.clientSecret }
  return vendorPairVariant(await rig.pair(), secret, sdk)
}

/** The vendor's `B24OAuth` making `profile` calls with `pair` (its endpoints name the server it calls). */
export function vendorPairVariant(
  pair: EmulatorAuthParams,
  secret: { clientId: string; clientSecret: string },
  sdk: VendorSdk,
): CpuVariant {
  const client = new sdk.B24OAuth(pair, secret, { restrictionParams: UNPACED_NOT_ADAPTIVE })
  client.setLogger(sdk.LoggerFactory.createNullLogger())
  client.offClientSideWarning()
  const name = `${VENDOR_PACKAGE} ${VENDOR_VERSION} call.make ${VENDOR_METHOD}, adaptive limits off`
  return {
    name,
    call: async () => {
      const result = await client.actions.v2.call.make({ method: VENDOR_METHOD, params: {} })
      if (!result.isSuccess) throw new Error(`${name}: ${result.getErrorMessages().join('; ')}`)
    },
    close: async () => client.destroy(),
  }
}
