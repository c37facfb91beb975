import type { ResultOf } from '../catalogue/call-types.js'
import type { TypeHttp } from '../http/rest-transport.js'
import type { AjaxResult } from '../results/ajax-result.js'
import type { CallOptions } from '../types/call.js'

/** What a call through {@link MethodsByName} takes besides its parameters: `requestId`, `signal`, `timeout`, … */
export type MethodCallOptions = Omit<CallOptions, 'method' | 'params'>

/**
 * The arguments of one method: its parameters (optional when it has no required one; as the catalogue `C` types
 * them), then the options of {@link MethodCallOptions}.
 */
export type MethodArgs<P> =
  Record<never, never> extends P
    ? [params?: P, options?: MethodCallOptions]
    : [params: P, options?: MethodCallOptions]

/**
 * `actions.vN.methods`: every method of the catalogue `C` as a function by its name,
 * `methods['crm.item.add']({ entityTypeId: 2, fields }, { requestId })`, sent exactly as
 * `call.make({ requestId, method: 'crm.item.add', params: { entityTypeId: 2, fields } })` and resolved with the result
 * the docs show (`Res`). The name is a key of this type (a mapped type keeps each key's declaration), so an editor
 * shows the method's doc comment on it (description, scope, page; on hover with TypeScript 5.9, on go-to-definition
 * with 7.0) and strikes a deprecated one through: a string in `make({ method })` is a value, and carries none of that.
 */
export type MethodsByName<C, Res> = {
  readonly [M in keyof C]: (...args: MethodArgs<C[M]>) => Promise<AjaxResult<ResultOf<Res, M>>>
}

/**
 * Names an object answers whatever it holds (`toString`, `valueOf`, `then` of a promise, `toJSON` of
 * `JSON.stringify`): not methods of the portal, so that `String(methods)`, `await methods` or
 * `JSON.stringify(methods)` never sends a request.
 */
function isProtocolName(name: string): boolean {
  return name in Object.prototype || name === 'then' || name === 'toJSON'
}

/**
 * The run-time side of {@link MethodsByName}: a function for every name, which sends the call through `transport`. Any
 * name, as `make({ unchecked: true })` would: the type is what keeps to the catalogue, and a name the portal lacks
 * resolves with its error. Each function is made once per name.
 */
export function methodsByName<C, Res>(transport: () => TypeHttp): MethodsByName<C, Res> {
  const made = new Map<string, (params?: Record<string, unknown>, options?: MethodCallOptions) => unknown>()
  const handler: ProxyHandler<object> = {
    get(target, name, receiver) {
      if (typeof name !== 'string' || isProtocolName(name)) return Reflect.get(target, name, receiver)
      let method = made.get(name)
      if (method === undefined) {
        method = (params, options) => transport().call({ ...options, method: name, params })
        made.set(name, method)
      }
      return method
    },
  }
  return new Proxy({}, handler) as MethodsByName<C, Res>
}
