import type { CallOptions } from '../types/call.js'

/** `params` of a method: optional when the method has no required parameter, required otherwise. */
export type ParamsOf<P> = Record<never, never> extends P ? { params?: P } : { params: P }

/**
 * The method names of the catalogue `C`, `keyof C & string`. As a conditional type because TypeScript caches a
 * conditional type's instantiations but recomputes a `keyof` (a union of some 1 600 names) wherever a generic type
 * that names it is instantiated: once per catalogue instead of once per method checked.
 */
export type MethodNameOf<C> = [C] extends [unknown] ? keyof C & string : never

/**
 * The parameters of `M` in the catalogue `C`; `unknown` for a name `C` lacks (whose `method` is then refused, so
 * that the parameters are not reported as well). The `unknown` branch and `[M]` (no distribution over `M`) matter
 * for speed: before `M` is known, TypeScript reads this type as its constraint, which is then `unknown` at once,
 * not the union of every method's parameters absorbed by `unknown`.
 */
export type ParamsIn<C, M> = [M] extends [MethodNameOf<C>] ? C[M] : unknown

/**
 * The type `method` must have for a name `M` the caller wrote: `M` itself when `C` documents it and `X` (methods
 * another overload takes, the deprecated ones) does not list it, `never` when `X` does, and every name of `C` when `C`
 * lacks it (so that the error lists the names and suggests the nearest).
 */
export type MethodIn<C, M, X = never> =
  M extends MethodNameOf<C> ? ([M] extends [X] ? never : M) : MethodNameOf<C>

/**
 * Nothing when `C` documents the method `M` and `X` (methods another overload takes: the deprecated ones) does not
 * list it; else a `method` that `M` is not (`never` for a method of `X`, every name of `C` for a name `C` lacks).
 * A conditional type with an `unknown` branch, on `[M]`: before `M` is known, TypeScript reads it as `unknown`,
 * never as the union of every method name.
 */
export type MethodCheck<C, M, X = never> = [M] extends [MethodNameOf<C>]
  ? [M] extends [X]
    ? { method: never }
    : unknown
  : { method: MethodNameOf<C> }

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
 * Options of `call.make` for the method `M` checked as {@link CatalogueCallOptions}, a misspelt name failing with
 * "Did you mean" (see {@link ReportedOptions}): those of the last overload, whose error a call that does not
 * compile reports.
 */
export type ReportedCallOptions<C, M> = ReportedOptions<C, M, Omit<CallOptions, 'method' | 'params'>>

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
 * The options of a call of the method `M` of the catalogue `C` that has a required parameter (so `params` is
 * required): a member of the written-out unions of the generated catalogue, and the options of a deprecated method's
 * signature. An interface, so that TypeScript reads `C[M]` only when a call is checked against it.
 */
export interface MethodCall<C, M extends keyof C> extends Omit<CallOptions, 'method' | 'params'> {
  /** A documented method name. */
  method: M
  /** The method's parameters. */
  params: C[M]
  /** Not set: the call is checked against the catalogue. */
  unchecked?: false
}

/** The options of a call of the method `M` of `C` whose parameters are all optional, as {@link MethodCall}. */
export interface OptionalParamsCall<C, M extends keyof C> extends Omit<CallOptions, 'method' | 'params'> {
  /** A documented method name. */
  method: M
  /** The method's parameters. */
  params?: C[M]
  /** Not set: the call is checked against the catalogue. */
  unchecked?: false
}

/**
 * The `this` of the signatures for a result type the caller gave (`make<Deal>(...)`): a receiver no action is
 * when `T` was not given, so that TypeScript drops the signature before it reads the options (the `this` is checked
 * first), and anything when it was.
 */
export type ResultTypeGiven<T> = [T] extends [DocumentedResult]
  ? { readonly 'portal-oauth: a result type given': never }
  : unknown

/**
 * Options of `call.make` for any of the documented methods `M` of `C`, one union member per method: what a call
 * that gives the result type (`make<Deal>(...)`, so `M` is not inferred) is checked against.
 */
export type DistributedCallOptions<C, M extends keyof C> =
  M extends MethodNameOf<C>
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
export type ResultOf<Res, M> = M extends MethodNameOf<Res> ? Res[M] : unknown

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
