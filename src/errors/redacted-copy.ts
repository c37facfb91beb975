import { inspect } from 'node:util'
import {
  dataOf,
  loggedOf,
  type ReadNode,
  type ReadObject,
  stringAt,
  type ThrownSnapshot,
} from './thrown-snapshot.js'

/** How the copy tells itself as text: `name: message`, as `Error.prototype.toString` would. */
function lineOf(node: ReadObject): string {
  const name = stringAt(node, 'name') ?? 'Error'
  const message = stringAt(node, 'message') ?? ''
  return message === '' ? name : `${name}: ${message}`
}

/** A property of the copy: an error as a copy of its own, a list item by item, anything else as the data read. */
function copiedValue(node: ReadNode): unknown {
  if (node.kind === 'leaf') return node.data
  if (node.isError) return copyOf(node)
  if (node.isArray) return [...node.properties.values()].map((property) => copiedValue(property.node))
  return dataOf(node)
}

function copyOf(node: ReadObject): Error {
  const copy = Object.create(node.prototype ?? Error.prototype) as Error
  const hidden = { writable: true, configurable: true, enumerable: false }
  for (const [key, property] of node.properties) {
    // What an own property held, and what a getter or field of the class gave, is set on the copy itself, so that
    // the class's getter, which may name a secret, is never reached through it.
    if (!property.own && !property.inherited) continue
    const enumerable = property.own && property.enumerable
    Object.defineProperty(copy, key, { ...hidden, enumerable, value: copiedValue(property.node) })
  }
  // The class's own ways of turning it into text or JSON may name a secret: the copy answers with what was read.
  const line = lineOf(node)
  for (const key of node.conversions) {
    const answer =
      key === 'toJSON'
        ? () => loggedOf(node)
        : key === inspect.custom
          ? () => (typeof copy.stack === 'string' ? copy.stack : line)
          : () => line
    Object.defineProperty(copy, key, { ...hidden, value: answer })
  }
  return copy
}

/**
 * A copy of the error `snapshot` read, made of what was read: the same prototype (so `instanceof` still holds),
 * every property, getter and field of its class set on the copy with its secrets replaced, its `cause` and `errors`
 * copied the same way, and its class's `toJSON`, `toString` and `Symbol.toPrimitive` answered from the snapshot.
 */
export function redactedCopy(snapshot: ThrownSnapshot): Error {
  const { node } = snapshot
  if (node.kind !== 'object' || !node.isError)
    throw new TypeError('redactedCopy: the snapshot is of no Error')
  return copyOf(node)
}
