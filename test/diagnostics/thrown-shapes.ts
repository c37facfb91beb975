import { inspect } from 'node:util'
import fc from 'fast-check'

// The shapes of a thrown value that quotes a secret, shared by the redaction properties: as data (what fast-check
// generates, prints and shrinks), and the value each describes.

/** Which secret a thrown value quotes. */
export type SecretKind = 'refreshToken' | 'accessToken' | 'clientSecret' | 'applicationToken'

/** A thrown value holding a secret, as data: what fast-check generates, prints and shrinks. */
export type Shape =
  /** `Error` whose message quotes it. */
  | { kind: 'message'; secret: SecretKind }
  /** An enumerable own field. */
  | { kind: 'own-field'; secret: SecretKind }
  /** A non-enumerable own field. */
  | { kind: 'hidden-field'; secret: SecretKind }
  /** An own getter. */
  | { kind: 'own-getter'; secret: SecretKind }
  /** An own `code` getter that says it from its second read on. */
  | { kind: 'changing-getter'; secret: SecretKind }
  /** A getter of the error's class. */
  | { kind: 'prototype-getter'; key: 'code' | 'name' | 'message' | 'status' | 'detail'; secret: SecretKind }
  /** A field set on the class's prototype. */
  | { kind: 'prototype-field'; secret: SecretKind }
  /** `toJSON`, `toString`, `Symbol.toPrimitive` and `util.inspect.custom` of the class. */
  | { kind: 'prototype-conversions'; secret: SecretKind }
  /** Its own `toJSON`, `toString` and `Symbol.toPrimitive`. */
  | { kind: 'own-conversions'; secret: SecretKind }
  /** A getter that throws an error quoting it. */
  | { kind: 'throwing-getter'; secret: SecretKind }
  /** A Proxy of an error whose every trap throws an error quoting it. */
  | { kind: 'proxy-throws'; secret: SecretKind }
  /** A Proxy of an error whose `get` answers it for every key. */
  | { kind: 'proxy-get'; secret: SecretKind }
  /** A string quoting it. */
  | { kind: 'string'; secret: SecretKind }
  /** A Symbol whose description quotes it. */
  | { kind: 'symbol'; secret: SecretKind }
  /** A plain object whose `toJSON` gives it. */
  | { kind: 'plain-to-json'; secret: SecretKind }
  /** A number: no secret at all. */
  | { kind: 'number' }
  /** `Error('...', { cause })`. */
  | { kind: 'cause'; inner: Shape }
  /** `AggregateError(errors)`. */
  | { kind: 'aggregate'; inner: Shape[] }
  /** An error that holds itself, and a field that holds it again besides `inner`. */
  | { kind: 'cycle'; inner: Shape }
  /** A plain object `{ reason: inner }`. */
  | { kind: 'plain'; inner: Shape }

export const secretKind = fc.constantFrom<SecretKind>(
  'refreshToken',
  'accessToken',
  'clientSecret',
  'applicationToken',
)

export const shape: fc.Arbitrary<Shape> = fc.letrec<{ shape: Shape; nested: Shape }>(
  (tie) =>
    ({
      shape: fc.oneof(
        { maxDepth: 3, depthIdentifier: 'shape' },
        fc.oneof(
          fc.record({
            kind: fc.constantFrom(
              'message',
              'own-field',
              'hidden-field',
              'own-getter',
              'changing-getter',
              'prototype-field',
              'prototype-conversions',
              'own-conversions',
              'throwing-getter',
              'proxy-throws',
              'proxy-get',
              'string',
              'symbol',
              'plain-to-json',
            ),
            secret: secretKind,
          }),
          fc.record({
            kind: fc.constant('prototype-getter'),
            key: fc.constantFrom('code', 'name', 'message', 'status', 'detail'),
            secret: secretKind,
          }),
          fc.constant({ kind: 'number' } as const),
        ),
        tie('nested'),
      ),
      nested: fc.oneof(
        fc.record({ kind: fc.constant('cause'), inner: tie('shape') }),
        fc.record({
          kind: fc.constant('aggregate'),
          inner: fc.array(tie('shape'), { minLength: 1, maxLength: 3 }),
        }),
        fc.record({ kind: fc.constant('cycle'), inner: tie('shape') }),
        fc.record({ kind: fc.constant('plain'), inner: tie('shape') }),
      ),
    }) as { shape: fc.Arbitrary<Shape>; nested: fc.Arbitrary<Shape> },
).shape

/** Whether the value is an `Error` (`instanceof`, as the client asks it once). */
export function isErrorShape(given: Shape): boolean {
  return !['proxy-throws', 'string', 'symbol', 'plain-to-json', 'number', 'plain'].includes(given.kind)
}

/** Every trap of a Proxy. */
const TRAPS = [
  'get',
  'set',
  'has',
  'ownKeys',
  'getOwnPropertyDescriptor',
  'getPrototypeOf',
  'defineProperty',
  'deleteProperty',
  'apply',
  'construct',
  'isExtensible',
  'preventExtensions',
  'setPrototypeOf',
] as const

/** The value `given` describes, quoting the secrets `secretOf` gives now. */
export function build(given: Shape, secretOf: (kind: SecretKind) => string): unknown {
  switch (given.kind) {
    case 'number':
      return 42
    case 'cause':
      return new Error('vault refused', { cause: build(given.inner, secretOf) })
    case 'aggregate':
      return new AggregateError(
        given.inner.map((inner) => build(inner, secretOf)),
        'every vault refused',
      )
    case 'cycle': {
      const error = new Error('vault loops') as Error & Record<string, unknown>
      error.self = error
      error.detail = { back: error, inner: build(given.inner, secretOf) }
      return error
    }
    case 'plain':
      return { reason: build(given.inner, secretOf) }
  }
  const secret = secretOf(given.secret)
  switch (given.kind) {
    case 'message':
      return new Error(`vault refused ${secret}`)
    case 'own-field':
      return Object.assign(new Error('vault refused'), { detail: `spent ${secret}` })
    case 'hidden-field':
      return Object.defineProperty(new Error('vault refused'), 'detail', { value: secret })
    case 'own-getter':
      return Object.defineProperty(new Error('vault refused'), 'code', { get: () => `REFUSED_${secret}` })
    case 'changing-getter': {
      let reads = 0
      return Object.defineProperty(new Error('vault refused'), 'code', {
        get: () => {
          reads += 1
          return reads === 1 ? 'REFUSED' : `REFUSED_${secret}`
        },
      })
    }
    case 'prototype-getter': {
      // The class's getter reads the error's own state, as a getter of a real error class does.
      const quoted = new WeakMap<object, string>()
      class VaultError extends Error {}
      Object.defineProperty(VaultError.prototype, given.key, {
        get(this: object) {
          return `REFUSED_${quoted.get(this) ?? ''}`
        },
      })
      const error = new VaultError()
      quoted.set(error, secret)
      return error
    }
    case 'prototype-field': {
      class VaultError extends Error {}
      Object.defineProperty(VaultError.prototype, 'hint', { value: `spent ${secret}` })
      return new VaultError('vault refused')
    }
    case 'prototype-conversions': {
      class VaultError extends Error {
        toJSON(): unknown {
          return { secret }
        }
        override toString(): string {
          return secret
        }
        [Symbol.toPrimitive](): string {
          return secret
        }
        [inspect.custom](): string {
          return secret
        }
      }
      return new VaultError('vault refused')
    }
    case 'own-conversions':
      return Object.assign(new Error('vault refused'), {
        toJSON: () => ({ secret }),
        toString: () => secret,
        [Symbol.toPrimitive]: () => secret,
      })
    case 'throwing-getter':
      return Object.defineProperty(new Error('vault refused'), 'detail', {
        enumerable: true,
        get: () => {
          throw new Error(`vault sealed ${secret}`)
        },
      })
    case 'proxy-throws': {
      const fail = (): never => {
        throw new Error(`trap ${secret}`)
      }
      return new Proxy(new Error('vault refused'), Object.fromEntries(TRAPS.map((trap) => [trap, fail])))
    }
    case 'proxy-get':
      return new Proxy(new Error('vault refused'), { get: () => `leak ${secret}` })
    case 'string':
      return `vault refused ${secret}`
    case 'symbol':
      return Symbol(`vault ${secret}`)
    case 'plain-to-json':
      return { toJSON: () => ({ secret }) }
  }
}
