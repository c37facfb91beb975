import type { AjaxResult } from '../results/ajax-result.js'
import type { CallOptions } from '../types/call.js'

/** `params` of a method: optional when the method has no required parameter, required otherwise. */
export type ParamsOf<P> = Record<never, never> extends P ? { params?: P } : { params: P }

/**
 * The parameters of `M` in the catalogue `C`; `unknown` for a name `C` lacks (whose `method` is then refused, so
 * that the parameters are not reported as well). The `unknown` branch matters for speed: before `M` is known,
 * TypeScript reads this type as the union of its branches, which `unknown` absorbs, instead of the union of every
 * method's parameters.
 */
export type ParamsIn<C, M> = M extends keyof C ? C[M] : unknown

/**
 * The type `method` must have for a name `M` the caller wrote: `M` itself when `C` documents it and `X` (methods
 * another overload takes, the deprecated ones) does not list it, `never` when `X` does, and every name of `C` when `C`
 * lacks it (so that the error lists the names and suggests the nearest).
 */
export type MethodIn<C, M, X = never> = M extends keyof C ? ([M] extends [X] ? never : M) : keyof C & string

/**
 * Nothing when `C` documents the method `M` and `X` (methods another overload takes: the deprecated ones) does not
 * list it; else a `method` that `M` is not (`never` for a method of `X`, every name of `C` for a name `C` lacks).
 * A conditional type with an `unknown` branch: before `M` is known, TypeScript reads it as `unknown`, never as the
 * union of every method name.
 */
export type MethodCheck<C, M, X = never> = M extends keyof C
  ? [M] extends [X]
    ? { method: never }
    : unknown
  : { method: keyof C & string }

/**
 * Options `Base` checked against the catalogue `C` for the method `M` the caller wrote: `method`, its parameters
 * (required ones required, `params` itself required when one is), `unchecked` left out or `false`.
 *
 * The type parameter `M` is read from `method` alone, and nothing here spreads over every method of `C`: before `M`
 * is known, `params` is typed as an object of any fields and `method` as `M` (so TypeScript never builds the union
 * of every method's parameters or walks the union of every name, which made TypeScript 5 slow), and once it is
 * known, as the method's own parameters (what an editor completes at `params: { | }`).
 */
export type CheckedOptions<C, M, Base, X = never> = Base & {
  /** A documented method name. */
  method: M
  /** Not set: the call is checked against the catalogue. */
  unchecked?: false
} & MethodCheck<C, M, X> &
  ParamsOf<ParamsIn<C, M>>

/**
 * Options `Base` for the method `M` checked as {@link CheckedOptions}, with `method` typed by {@link MethodIn}: a
 * misspelt name fails naming every documented name and the nearest ("Did you mean"). For the last overload, the
 * one whose error a call that does not compile reports.
 */
export type ReportedOptions<C, M, Base> = Base & {
  /** A documented method name. */
  method: MethodIn<C, M>
  /** Not set: the call is checked against the catalogue. */
  unchecked?: false
} & ParamsOf<ParamsIn<C, M>>

/**
 * Options of `call.make` for the documented method `M` of the catalogue `C` (see {@link CheckedOptions}); `X`: the
 * methods left to other overloads (the deprecated ones, which carry their note).
 */
export type CatalogueCallOptions<C, M, X = never> = CheckedOptions<
  C,
  M,
  Omit<CallOptions, 'method' | 'params'>,
  X
>

/**
 * Options of `call.make` for the deprecated methods `M` of `C` (the methods of one replacement): the signature that
 * carries their note.
 */
export type DeprecatedCallOptions<C, M extends keyof C> = Omit<CallOptions, 'method' | 'params'> & {
  /** A deprecated method name. */
  method: M
  /** Not set: the call is checked against the catalogue. */
  unchecked?: false
} & ParamsOf<C[M]>

/**
 * Options of `call.make` for any of the documented methods `M` of `C`, one union member per method: what a call
 * that gives the result type (`make<Deal>(...)`, so `M` is not inferred) is checked against.
 */
export type DistributedCallOptions<C, M extends keyof C> = M extends keyof C
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

/**
 * Nothing when the caller gave no result type `T`, else a `method` nothing satisfies: a call that gives the result
 * type (`make<Deal>(...)`) cannot infer the method name, so the signature that reads it from `method` leaves such a
 * call to the one checked against every method's options. (Without a name to read, the name's default, `string`,
 * makes the options take every documented name: what an editor lists at `method: '|'`.)
 */
export type NoResultType<T> = [T] extends [DocumentedResult] ? unknown : { method: never }

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
export type CheckedCallSignature<C, Res> = <T = DocumentedResult, M extends string = never>(
  options: ReportedOptions<C, M, Omit<CallOptions, 'method' | 'params'>>,
) => Promise<AjaxResult<CallResult<T, Res, M>>>

/**
 * `call.make` of a documented method with the result type given (`make<Deal>(...)`): checked against the union of
 * every documented method's options, as the method name is not inferred when a type argument is given. After the
 * deprecated methods' signatures, so that a deprecated method called so still shows as deprecated.
 */
export type ResultTypedCallSignature<C> = <T, M extends keyof C & string = keyof C & string>(
  options: DistributedCallOptions<C, M>,
) => Promise<AjaxResult<T>>

/**
 * The overloads `call.make` gets for the deprecated methods `D` (one signature each, carrying the method's
 * `@deprecated` note and replacement), followed by {@link ResultTypedCallSignature} and
 * {@link CheckedCallSignature}. An editor shows a call of a deprecated method struck through, and its hover names
 * the replacement.
 */
export interface DeprecatedCallOverloads<C, D, Res> {
  /** The deprecated methods' signatures, the form with a result type, then every documented method's. */
  readonly make: D & ResultTypedCallSignature<C> & CheckedCallSignature<C, Res>
}
