import type { AjaxResult } from '../results/ajax-result.js'
import type { CallOptions } from '../types/call.js'

/** `params` of a method: optional when the method has no required parameter, required otherwise. */
export type ParamsOf<P> = Record<never, never> extends P ? { params?: P } : { params: P }

/**
 * Options of `call.make` for a documented method `M` of the catalogue `C`: the method name, its typed parameters
 * (required ones required), and the other {@link CallOptions}. Distributes over a union of names, so a caller that
 * fixes only the result type (`make<Deal>(...)`) is still checked against the method it names.
 */
export type CatalogueCallOptions<C, M extends keyof C> = M extends keyof C
  ? Omit<CallOptions, 'method' | 'params'> & {
      /** A documented method name. */
      method: M
      /** Not set: the call is checked against the catalogue. */
      unchecked?: false
    } & ParamsOf<C[M]>
  : never

/**
 * The default of the result type argument of `call.make` and of the other checked calls: the documented result
 * of the method called. A type argument given (`make<Deal>(...)`) replaces it.
 */
export interface DocumentedResult {
  /** A marker no result type has. */
  readonly 'portal-oauth: the documented result': never
}

/** The documented `result` of method `M` in the results catalogue `Res`, `unknown` where the docs show none. */
export type ResultOf<Res, M> = M extends keyof Res ? Res[M] : unknown

/** The result type of a call: `T` when the caller gave one, else the documented result of `M`. */
export type CallResult<T, Res, M> = [T] extends [DocumentedResult] ? ResultOf<Res, M> : T

/**
 * The escape hatch: a method or parameters the catalogue lacks (an application's own methods, methods newer than the
 * catalogue, a name held in a `string`). `unchecked: true` only switches the compile-time check off; the call is
 * sent exactly as without it.
 */
export interface UncheckedCallOptions extends CallOptions {
  /** Skips the catalogue check for this call. */
  unchecked: true
}

/**
 * `call.make` checked against every documented method of `C`, deprecated ones included. It comes last among the
 * overloads: a call that fails to compile reports this signature's error (the method names it could have been,
 * the parameters missing).
 */
export type CheckedCallSignature<C, Res> = <
  T = DocumentedResult,
  M extends keyof C & string = keyof C & string,
>(
  options: CatalogueCallOptions<C, M>,
) => Promise<AjaxResult<CallResult<T, Res, M>>>

/**
 * The overloads `call.make` gets for the deprecated methods `D` (one signature each, carrying the method's
 * `@deprecated` note and replacement), followed by {@link CheckedCallSignature}. An editor shows a call of a
 * deprecated method struck through, and its hover names the replacement.
 */
export interface DeprecatedCallOverloads<C, D, Res> {
  /** The deprecated methods' signatures, then every documented method's. */
  readonly make: D & CheckedCallSignature<C, Res>
}
