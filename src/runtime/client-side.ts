/** A browser-like runtime where server secrets must not live. */
export type ClientSideRuntime = 'browser main thread' | 'Web Worker' | 'Shared Worker' | 'Service Worker'

type Scope = Record<string, unknown>

function isScopeOf(scope: Scope, constructorName: string): boolean {
  const ctor = scope[constructorName]
  if (typeof ctor !== 'function') return false
  const self = scope.self ?? scope
  return self instanceof (ctor as abstract new (...args: never[]) => unknown)
}

/**
 * Which browser-like runtime this code runs in, or `null` on a server runtime.
 * Workers are recognised by their global scope class, the main thread by `window.document`.
 */
export function detectClientSideRuntime(
  scope: Record<string, unknown> = globalThis as unknown as Record<string, unknown>,
): ClientSideRuntime | null {
  if (isScopeOf(scope, 'ServiceWorkerGlobalScope')) return 'Service Worker'
  if (isScopeOf(scope, 'SharedWorkerGlobalScope')) return 'Shared Worker'
  if (isScopeOf(scope, 'DedicatedWorkerGlobalScope')) return 'Web Worker'
  const win = scope.window as Scope | undefined
  if (win !== null && typeof win === 'object' && win.document !== null && typeof win.document === 'object') {
    return 'browser main thread'
  }
  return null
}

/** The warning text for a runtime. */
export function clientSideWarningMessage(className: string, runtime: ClientSideRuntime): string {
  return (
    `${className} is running in a ${runtime}. It holds the client secret and the token pair, which must stay on a ` +
    'server. Use a server-side wrapper, or call offClientSideWarning() if tokens are already proxied through one.'
  )
}
