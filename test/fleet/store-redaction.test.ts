import { inspect } from 'node:util'
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  type DeadPairReason,
  exchangeAuthorizationCode,
  type PortalFleet,
  type PortalOAuthParams,
  SdkError,
  SdkErrorCode,
  type SharedBucketSettings,
  type SlotAnswer,
  type TokenStore,
} from '../../src/index.js'
import type { PortalEmulator } from '../../src/testing/index.js'
import { readEverything } from '../diagnostics/observe-everything.js'
import { build, type SecretKind, type Shape, shape } from '../diagnostics/thrown-shapes.js'
import { createMemoryLogger } from '../helpers.js'
import { createFleetRig } from './fleet-rig.js'

// A fleet on an application's own TokenStore whose failures quote what they were given (the pair they failed to
// write, the row they failed to remove or read): no token of any event, pair or exchange the fleet handled may reach
// what the fleet rejects with (message, stack, cause chain, JSON, String, util.inspect, every property) or its log.

/** The store methods the fleet calls, and `save`, which only the portals' clients call. */
type Method = 'load' | 'replace' | 'remove' | 'save'

/** How a failing store writes the secret it quotes. */
type Encoding = 'plain' | 'upper' | 'base64' | 'base64url' | 'percent'

/** How a failing `load` quotes the row it holds (a value the fleet has not seen, so only a labelled one is found). */
type Label = 'json' | 'inspect' | 'form' | 'bearer'

/** What one run does. */
type Operation =
  | 'install event'
  | 'update event'
  | 'uninstall event'
  | 'other event'
  | 'fleet.install'
  | 'exchange'
  | 'get'

/** The store calls each operation makes, in order: the one that fails is one of them. */
const CALLS: Record<Operation, Method[]> = {
  'install event': ['load', 'replace'],
  'update event': ['load', 'replace'],
  'uninstall event': ['load', 'remove'],
  'other event': ['load'],
  'fleet.install': ['replace'],
  exchange: ['replace'],
  get: ['load'],
}

/** A failure as fast-check generates it. */
interface Failure {
  operation: Operation
  method: Method
  shape: Shape
  encoding: Encoding
  label: Label
  /** Bytes of text the store puts before the secret (its base64 alignment). */
  prefix: number
}

const failure: fc.Arbitrary<Failure> = fc
  .constantFrom<Operation>(...(Object.keys(CALLS) as Operation[]))
  .chain((operation) =>
    fc.record({
      operation: fc.constant(operation),
      method: fc.constantFrom(...CALLS[operation]),
      shape,
      encoding: fc.constantFrom<Encoding>('plain', 'upper', 'base64', 'base64url', 'percent'),
      label: fc.constantFrom<Label>('json', 'inspect', 'form', 'bearer'),
      prefix: fc.nat({ max: 5 }),
    }),
  )

/** The names a row's field goes by: camel case in JSON and inspect, the protocol's in a form body. */
const FIELD_NAMES: Record<SecretKind, [string, string]> = {
  accessToken: ['accessToken', 'access_token'],
  refreshToken: ['refreshToken', 'refresh_token'],
  applicationToken: ['applicationToken', 'application_token'],
  clientSecret: ['clientSecret', 'client_secret'],
}

/** `secret` as the store writes it, and the part of it that must not be seen after redaction. */
function encode(secret: string, encoding: Encoding, prefix: number): { text: string; needle: string } {
  const before = 'p'.repeat(prefix)
  switch (encoding) {
    case 'plain':
      return { text: `${before}${secret}`, needle: secret }
    case 'upper':
      return { text: `${before}${secret.toUpperCase()}`, needle: secret.toUpperCase() }
    case 'percent':
      return { text: `${before}${encodeURIComponent(secret)}`, needle: encodeURIComponent(secret) }
    case 'base64':
    case 'base64url': {
      const text = Buffer.from(`${before}${secret}:tail`).toString(encoding)
      // The characters that carry nothing but the secret's bits; its middle half is what a leak would show.
      const first = Math.ceil((prefix * 4) / 3)
      const last = Math.floor(((prefix + secret.length) * 4) / 3)
      const quarter = Math.floor((last - first) / 4)
      return { text, needle: text.slice(first + quarter, last - quarter) }
    }
  }
}

/** A value of `row` as a store that dumps the row writes it: labelled with its field's name. */
function labelled(kind: SecretKind, value: string, label: Label): string {
  const [camel, snake] = FIELD_NAMES[kind]
  switch (label) {
    case 'json':
      return JSON.stringify({ memberId: 'row', [camel]: value })
    case 'inspect':
      return inspect({ memberId: 'row', [camel]: value })
    case 'form':
      return new URLSearchParams({ member_id: 'row', [snake]: value }).toString()
    case 'bearer':
      return `Authorization: Bearer ${value}`
  }
}

/**
 * An application's own store, as a user would write one: pairs in a Map, and a failure armed for one method, which
 * then throws (or rejects) a value of the generated shape quoting its arguments: the pair `replace` and `save` were
 * given, the row `remove` was to delete, the row `load` holds (labelled, as a dump of it writes it).
 */
class QuotingStore implements TokenStore {
  readonly rows = new Map<string, PortalOAuthParams>()
  /** Every pair written, and every value thrown. */
  readonly written: PortalOAuthParams[] = []
  readonly thrown: unknown[] = []
  /** What the strings the store embedded look like when they leak. */
  readonly needles: string[] = []
  armed: (Failure & { clientSecret: string }) | null = null

  async load(memberId: string): Promise<PortalOAuthParams | null> {
    const row = this.rows.get(memberId) ?? null
    this.#fail('load', (kind, armed) =>
      kind === 'clientSecret' || row === null
        ? this.#quote(kind === 'clientSecret' ? armed.clientSecret : memberId, armed)
        : labelled(kind, row[kind], armed.label),
    )
    return row
  }

  async save(params: PortalOAuthParams): Promise<PortalOAuthParams> {
    this.#fail('save', (kind, armed) => this.#quote(secretOf(params, kind, armed), armed))
    const row = this.rows.get(params.memberId)
    if (row && row.expires >= params.expires) return row
    this.rows.set(params.memberId, params)
    this.written.push(params)
    return params
  }

  async replace(params: PortalOAuthParams): Promise<void> {
    this.#fail('replace', (kind, armed) => this.#quote(secretOf(params, kind, armed), armed))
    this.rows.set(params.memberId, params)
    this.written.push(params)
  }

  async remove(memberId: string): Promise<void> {
    const row = this.rows.get(memberId)
    this.#fail('remove', (kind, armed) => this.#quote(row ? secretOf(row, kind, armed) : memberId, armed))
    this.rows.delete(memberId)
  }

  async lock(): Promise<string | null> {
    return 'owner'
  }

  async unlock(): Promise<boolean> {
    return true
  }

  async changed(_memberId: string, timeoutMs: number, signal?: AbortSignal): Promise<void> {
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, Math.min(timeoutMs, 50))
      signal?.addEventListener('abort', () => {
        clearTimeout(timer)
        resolve()
      })
    })
  }

  async takeSlot(memberId: string, _bucket: SharedBucketSettings): Promise<SlotAnswer> {
    return { waitMs: 0, storedExpires: this.rows.get(memberId)?.expires ?? null, granted: 1 }
  }

  async markDead(_memberId: string, _refreshToken: string, _reason: DeadPairReason): Promise<void> {}

  async deadReason(): Promise<DeadPairReason | null> {
    return null
  }

  async close(): Promise<void> {}

  /** `text` as the armed failure encodes it; what its leak would show is kept. */
  #quote(text: string, armed: Failure): string {
    const encoded = encode(text, armed.encoding, armed.prefix)
    this.needles.push(encoded.needle)
    return encoded.text
  }

  /** Throws the armed failure once, if it is armed for `method` (the async method rejects with it). */
  #fail(
    method: Method,
    quote: (kind: SecretKind, armed: Failure & { clientSecret: string }) => string,
  ): void {
    const armed = this.armed
    if (armed?.method !== method) return
    this.armed = null
    const value = build(armed.shape, (kind) => quote(kind, armed))
    this.thrown.push(value)
    throw value
  }
}

/** The secret of `kind` a pair holds; the client secret is the application's. */
function secretOf(params: PortalOAuthParams, kind: SecretKind, armed: { clientSecret: string }): string {
  return kind === 'clientSecret' ? armed.clientSecret : params[kind]
}

/** Every token field of an event body. */
function eventSecrets(body: string): string[] {
  const fields = new URLSearchParams(body)
  return ['access_token', 'refresh_token', 'application_token']
    .map((name) => fields.get(`auth[${name}]`))
    .filter((value): value is string => typeof value === 'string' && value !== '')
}

/** What of `secrets` and `needles` the text shows: a secret in any letter case, a needle as it is. */
function shown(text: string, secrets: Iterable<string>, needles: Iterable<string>): string[] {
  const lower = text.toLowerCase()
  return [
    ...[...secrets].filter((secret) => lower.includes(secret.toLowerCase())),
    ...[...needles].filter((needle) => needle.length >= 8 && text.includes(needle)),
  ]
}

const rig = createFleetRig()
let portal: PortalEmulator
beforeAll(async () => {
  portal = await rig.portal()
})
afterAll(() => rig.close())

/** One run: a fleet on a new store, the portal installed, then the operation with the armed failure. */
async function run(given: Failure): Promise<void> {
  const store = new QuotingStore()
  const logger = createMemoryLogger()
  const fleet: PortalFleet = rig.fleet(portal, { store, logger })
  const secrets = new Set<string>([portal.clientSecret, portal.applicationToken])
  const install = portal.installEvent('ONAPPINSTALL')
  for (const secret of eventSecrets(install)) secrets.add(secret)
  try {
    await fleet.handleEvent(install)
    // Pairs issued from now on expire later: the operation's event is newer than the stored pair.
    rig.later()
    store.armed = { ...given, clientSecret: portal.clientSecret }
    const outcome = await operate(fleet, given.operation, secrets).then(
      () => undefined,
      (error: unknown) => error,
    )
    for (const pair of store.written) for (const secret of pairSecrets(pair)) secrets.add(secret)
    expect(store.thrown).toHaveLength(1)
    expect(outcome).toBeInstanceOf(SdkError)
    expect(outcome).toMatchObject({ code: SdkErrorCode.TokenStoreFailed })
    const error = outcome as SdkError
    const everything = [
      readEverything(error),
      String(error.stack),
      JSON.stringify(error),
      String(error),
      inspect(error, { depth: 10, showHidden: true, getters: true }),
      readEverything(logger.lines),
    ].join('\n')
    expect(shown(everything, secrets, store.needles)).toEqual([])
  } finally {
    await fleet.destroy()
  }
}

function pairSecrets(params: PortalOAuthParams): string[] {
  return [params.accessToken, params.refreshToken, params.applicationToken]
}

/** Runs the operation; every secret it brings is added to `secrets`. */
async function operate(fleet: PortalFleet, operation: Operation, secrets: Set<string>): Promise<unknown> {
  const event = (body: string): Promise<unknown> => {
    for (const secret of eventSecrets(body)) secrets.add(secret)
    return fleet.handleEvent(body)
  }
  switch (operation) {
    case 'install event':
      return event(portal.installEvent('ONAPPINSTALL'))
    case 'update event':
      return event(portal.installEvent('ONAPPUPDATE'))
    case 'uninstall event':
      // The portal revokes the pair first: an uninstall is taken only once the portal refuses the stored pair.
      return event(portal.uninstall())
    case 'other event': {
      // An event of the portal's own (a deal added) carries the same auth fields as an update.
      const fields = new URLSearchParams(portal.installEvent('ONAPPUPDATE'))
      fields.set('event', 'ONCRMDEALADD')
      return event(fields.toString())
    }
    case 'fleet.install': {
      const params = portal.issueAuthParams()
      for (const secret of pairSecrets(params)) secrets.add(secret)
      return fleet.install(params)
    }
    case 'exchange': {
      const code = portal.issueAuthorizationCode()
      secrets.add(code)
      return exchangeAuthorizationCode({
        code,
        oAuthSecret: { clientId: portal.clientId, clientSecret: portal.clientSecret },
        applicationToken: portal.applicationToken,
        serverEndpoint: portal.serverEndpoint,
        fleet,
      }).finally(() => {
        for (const secret of [portal.currentAccessToken, portal.currentRefreshToken])
          if (secret) secrets.add(secret)
      })
    }
    case 'get':
      return fleet.get(portal.memberId)
  }
}

/** What every run tries first: the issue's measured case, and each operation once. */
const EXAMPLES: Array<[Failure]> = [
  // A store whose error message quotes the pair it failed to write, through an install event (the measured leak).
  [
    {
      operation: 'install event',
      method: 'replace',
      shape: { kind: 'message', secret: 'accessToken' },
      encoding: 'plain',
      label: 'json',
      prefix: 0,
    },
  ],
  [
    {
      operation: 'update event',
      method: 'replace',
      shape: { kind: 'cause', inner: { kind: 'own-field', secret: 'refreshToken' } },
      encoding: 'upper',
      label: 'json',
      prefix: 0,
    },
  ],
  // The row an uninstall removes holds tokens the event does not carry: the fleet read them from the store.
  [
    {
      operation: 'uninstall event',
      method: 'remove',
      shape: { kind: 'message', secret: 'refreshToken' },
      encoding: 'plain',
      label: 'json',
      prefix: 0,
    },
  ],
  [
    {
      operation: 'uninstall event',
      method: 'remove',
      shape: { kind: 'prototype-conversions', secret: 'applicationToken' },
      encoding: 'base64',
      label: 'json',
      prefix: 1,
    },
  ],
  [
    {
      operation: 'other event',
      method: 'load',
      shape: { kind: 'prototype-getter', key: 'detail', secret: 'refreshToken' },
      encoding: 'plain',
      label: 'inspect',
      prefix: 0,
    },
  ],
  [
    {
      operation: 'fleet.install',
      method: 'replace',
      shape: { kind: 'changing-getter', secret: 'refreshToken' },
      encoding: 'base64url',
      label: 'json',
      prefix: 2,
    },
  ],
  [
    {
      operation: 'exchange',
      method: 'replace',
      shape: { kind: 'own-conversions', secret: 'accessToken' },
      encoding: 'plain',
      label: 'json',
      prefix: 0,
    },
  ],
  [
    {
      operation: 'get',
      method: 'load',
      shape: { kind: 'cause', inner: { kind: 'message', secret: 'accessToken' } },
      encoding: 'plain',
      label: 'form',
      prefix: 0,
    },
  ],
]

describe('PortalFleet on a TokenStore whose failures quote what they were given: no token reaches what the fleet rejects with, or its log', () => {
  it('whatever the shape of the failure, the operation, the store method and the form the secret is written in', async () => {
    await fc.assert(fc.asyncProperty(failure, run), { numRuns: 60, examples: EXAMPLES })
  })

  it('a code exchange the OAuth server refuses with a description that echoes the code and the client secret (base64 in a Basic header)', async () => {
    const code = portal.issueAuthorizationCode()
    const basic = Buffer.from(`${portal.clientId}:${portal.clientSecret}`).toString('base64')
    portal.failOAuth({
      error: 'invalid_grant',
      error_description: `code ${code} refused for client_secret ${portal.clientSecret.toUpperCase()} (sent ${basic})`,
    })
    const error = await exchangeAuthorizationCode({
      code,
      oAuthSecret: { clientId: portal.clientId, clientSecret: portal.clientSecret },
      applicationToken: portal.applicationToken,
      serverEndpoint: portal.serverEndpoint,
    }).catch((caught: unknown) => caught)
    expect(error).toMatchObject({ code: 'invalid_grant' })
    expect((error as SdkError).description).toMatch(
      /^code \[redacted\] refused for client_secret \[redacted\] \(sent /,
    )
    const shownNow = shown(readEverything(error), [code, portal.clientSecret], [basic.slice(-24, -4)])
    expect(shownNow).toEqual([])
  })

  it('the cause is a redacted copy of the store error: its class name, message, code and stack as read, no token', async () => {
    const store = new QuotingStore()
    const fleet = rig.fleet(portal, { store })
    const install = portal.installEvent('ONAPPINSTALL')
    const [accessToken] = eventSecrets(install)
    class VaultError extends Error {
      readonly code = 'VAULT_DOWN'
    }
    store.replace = async (params) => {
      throw new VaultError(`could not write ${params.accessToken}`)
    }
    const error = await fleet.handleEvent(install).catch((caught: unknown) => caught)
    expect(error).toMatchObject({
      code: SdkErrorCode.TokenStoreFailed,
      message: `token store failed keeping the pair of portal ${portal.memberId}: could not write [redacted]`,
    })
    const cause = (error as Error).cause as Error & { code?: string }
    expect(cause).toBeInstanceOf(Error)
    expect(cause).not.toBeInstanceOf(VaultError)
    expect(cause).toMatchObject({ name: 'Error', code: 'VAULT_DOWN', message: 'could not write [redacted]' })
    expect(cause.stack).toContain('could not write [redacted]')
    expect(inspect(error)).not.toContain(accessToken)
  })
})
