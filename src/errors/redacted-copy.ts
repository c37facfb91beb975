import {
  dataOf,
  type ReadNode,
  type ReadObject,
  stringAt,
  type ThrownSnapshot,
  textOf,
} from './thrown-snapshot.js'

/** What the copy of an error sets apart from its other properties. */
const OWN_KEYS = new Set(['name', 'message', 'stack', 'cause', 'errors'])

/** A property of a copy: an error as a copy of its own, a list item by item, anything else as the data read. */
function copiedValue(node: ReadNode): unknown {
  if (node.kind === 'leaf') return node.data
  if (node.isError) return copyOfError(node)
  if (node.isArray) return [...node.properties.values()].map((property) => copiedValue(property.node))
  return dataOf(node)
}

function copyOfError(node: ReadObject): Error {
  const name = stringAt(node, 'name') ?? 'Error'
  const message = node.properties.get('message')?.node
  const copy = new Error(message === undefined ? '' : textOf(message))
  const hidden = { writable: true, configurable: true, enumerable: false }
  Object.defineProperty(copy, 'name', { ...hidden, value: name })
  // The thrower's stack as read (redacted), not the copy's: it says where the failure came from.
  const stack = stringAt(node, 'stack')
  Object.defineProperty(copy, 'stack', {
    ...hidden,
    value: stack ?? `${name}${copy.message === '' ? '' : `: ${copy.message}`}`,
  })
  for (const [key, property] of node.properties) {
    if (OWN_KEYS.has(key)) continue
    const value = copiedValue(property.node)
    if (value !== undefined)
      Object.defineProperty(copy, key, { value, writable: true, configurable: true, enumerable: true })
  }
  const cause = node.properties.get('cause')?.node
  if (cause !== undefined) Object.defineProperty(copy, 'cause', { ...hidden, value: copiedValue(cause) })
  const errors = node.properties.get('errors')?.node
  if (errors !== undefined) Object.defineProperty(copy, 'errors', { ...hidden, value: copiedValue(errors) })
  return copy
}

/**
 * A plain `Error` made of a snapshot only, every secret already replaced: the thrower's name, message, stack, `code`
 * and other fields as read, its `cause` and `errors` copied the same way. It runs no code of the thrower and holds
 * none of its objects, so `util.inspect`, `JSON.stringify` or a logger's serializer can read it freely; `instanceof`
 * the thrower's class does not hold. A value that was no `Error` becomes `Error('Strange error: ...')` (spec 7).
 */
export function redactedCopy(snapshot: ThrownSnapshot): Error {
  const { node } = snapshot
  if (node.kind === 'object' && node.isError) return copyOfError(node)
  return new Error(`Strange error: ${snapshot.text()}`)
}
