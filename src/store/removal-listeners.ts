/**
 * Who hears that the store says a portal was removed (uninstalled by any process): the fleet holding the client,
 * which releases it. Keyed by the client's auth manager, which exists before the client does.
 */
const listeners = new WeakMap<object, () => void>()

/** Runs `listener` when the store tells `client` that its portal was removed. */
export function onRemovedFromStore(client: object, listener: () => void): void {
  listeners.set(client, listener)
}

/** The store told `client` that its portal was removed. */
export function removedFromStore(client: object): void {
  listeners.get(client)?.()
}
