/**
 * Option types of the list actions and batch commands, built from a catalogue (method name to parameter types).
 * Two ways: a union with one member per documented method, discriminated by `method` or a tuple's first item
 * (`MethodOptions`, `MethodTuple`, `MethodCommand`), and a check of each command the caller wrote, looked up by its
 * method name (`CheckedCommands`), which batches use because its cost grows with the commands written, not with the
 * size of the catalogue.
 */

import type { MethodNameOf } from './call-types.js'

/**
 * A value of `T`, or at any depth a reference `R` to the result of an earlier command of the same batch
 * (v2 `'$result[name][ID]'`, v3 `{ $ref: 'name.item.id' }`): the portal puts the value in before it runs the command.
 */
export type WithRefs<T, R> = [R] extends [never]
  ? T
  : T extends object
    ? { [K in keyof T]: WithRefs<T[K], R> } | R
    : T | R

/** Parameters `P` of a method whose values may be batch references `R` (none when `R` is `never`). */
export type RefParams<P, R> = [R] extends [never] ? P : { [K in keyof P]: WithRefs<P[K], R> }

/**
 * `Base` plus the `method` and `params` of each documented method of `C`, one union member per method: `params`
 * is optional when the method has no required parameter and required otherwise; `unchecked` is left out or
 * `false`.
 */
export type MethodOptions<C, Base> = {
  [M in keyof C & string]: Record<never, never> extends C[M]
    ? Base & {
        /** A documented method name. */
        method: M
        /** The method's parameters. */
        params?: C[M]
        /** Not set: checked against the catalogue. */
        unchecked?: false
      }
    : Base & {
        /** A documented method name. */
        method: M
        /** The method's parameters. */
        params: C[M]
        /** Not set: checked against the catalogue. */
        unchecked?: false
      }
}[keyof C & string]

/**
 * A batch command as an object, `{ method, params, as? }`, for each documented method of `C`; `as` names the
 * command so that later commands can refer to its result. `R`: the batch's reference form.
 */
export type MethodCommand<C, R> = {
  [M in keyof C & string]: Record<never, never> extends C[M]
    ? {
        /** A documented method name. */
        method: M
        /** The method's parameters; values may be references to earlier results. */
        params?: RefParams<C[M], R>
        /** Name of the command: its key in a v2 `cmd` map (`$result[name]`), its `as` alias in a v3 batch (`$ref`). */
        as?: string
      }
    : {
        /** A documented method name. */
        method: M
        /** The method's parameters; values may be references to earlier results. */
        params: RefParams<C[M], R>
        /** Name of the command: its key in a v2 `cmd` map (`$result[name]`), its `as` alias in a v3 batch (`$ref`). */
        as?: string
      }
}[keyof C & string]

/**
 * A batch command as a tuple, `[method, params]`, for each documented method of `C`; `params` may be left out
 * when the method has no required parameter. `R`: the batch's reference form.
 */
export type MethodTuple<C, R> = {
  [M in keyof C & string]: Record<never, never> extends C[M]
    ? readonly [method: M, params?: RefParams<C[M], R>]
    : readonly [method: M, params: RefParams<C[M], R>]
}[keyof C & string]

/**
 * A v2 batch reference to an earlier command's result: `'$result[name][ID]'` (also `$result_error`, ...).
 *
 * Intersected with `{}` (which every string is), so that TypeScript reads it as a named type that holds no type
 * variable: TypeScript 5 infers a call's type arguments through each parameter whose type may hold one, asks that
 * of an object type built from a generic one by its type arguments, and counts a bare template literal type as
 * one. Built with the bare `` `$result${string}` ``, a batch's options made every signature that gives the result
 * type (`batch.make<Deal>(...)`) walk the written commands against the union of every documented command on each
 * keystroke (73 000 of the 77 000 type instantiations of a command being written).
 */
export type V2BatchRef = `$result${string}` & {}

/** A v3 batch reference to an earlier command's result: `{ $ref: 'name.item.id' }`. */
export interface V3BatchRef {
  /** `alias.path` of the value in the result of the command named `alias`. */
  $ref: string
}

/** The keys of `P`, each optional and of any value: names an editor completes, which check nothing. */
export type KeysOf<P> = { [K in keyof P]?: unknown }

/** The keys of `T` that are not optional. */
export type RequiredKeys<T> = keyof {
  [K in keyof T as Record<never, never> extends Pick<T, K> ? never : K]: true
}

/**
 * What a value `G` the caller gave must be for the documented type `E`, built from what was given so that a checked
 * value is even a subtype of it (overload resolution's first pass, which a missing optional key would fail): a
 * reference `R` stays a reference; an array is checked item by item; an object key by key, `never` for a key the
 * type lacks (so that it fails to compile) and every required key of the type added; anything else is `E` (or a
 * reference).
 */
export type GivenAs<G, E, R> = [G] extends [never]
  ? never
  : G extends R
    ? R
    : G extends readonly unknown[]
      ? E extends readonly (infer I)[]
        ? { [K in keyof G]: GivenAs<G[K], I, R> }
        : WithRefs<E, R>
      : G extends object
        ? E extends readonly unknown[]
          ? WithRefs<E, R>
          : E extends object
            ? GivenObject<G, E, R>
            : WithRefs<E, R>
        : WithRefs<E, R>

/**
 * {@link GivenAs} of an object: each given key checked, `never` for a key `E` lacks; `E`'s required keys must be
 * there (their values are checked as given ones).
 */
export type GivenObject<G, E, R> = { [K in keyof G]: K extends keyof E ? GivenAs<G[K], E[K], R> : never } & {
  [K in RequiredKeys<E>]: unknown
}

/**
 * The `params` slot of a command tuple for parameters `P`, as `Rest` gave it (or not). The given object is checked
 * key by key ({@link GivenObject}); the names of the method's own parameters are intersected in ({@link KeysOf}) so
 * that an editor completes them in a command being written.
 */
export type ParamsSlot<P, R, Rest> = Rest extends readonly [infer Given, ...unknown[]]
  ? [params: GivenObject<Given, P, R> & KeysOf<P>]
  : Record<never, never> extends P
    ? []
    : [params: RefParams<P, R>]

/**
 * A command object for the documented method `M` with parameters `P`, as `Given` wrote it; `params` required when
 * `P` has a required key (which {@link GivenObject} then asks for).
 */
export type CommandFor<P, R, M, Given> = {
  [K in keyof Given]: K extends 'method'
    ? M
    : K extends 'params'
      ? GivenObject<Given[K], P, R> & KeysOf<P>
      : K extends 'as'
        ? string
        : never
} & (Record<never, never> extends P ? unknown : { params: unknown })

/**
 * What the command `E`, as the caller wrote it, must be for the catalogue `C`: the same tuple or object with its
 * method's parameters (references `R` allowed). A method the catalogue lacks must be one of its names, which it is
 * not, so the command fails to compile naming the method and the nearest documented one ("Did you mean").
 */
export type CheckedCommand<C, R, E> = E extends readonly [infer M, ...infer Rest]
  ? M extends MethodNameOf<C>
    ? readonly [method: M, ...ParamsSlot<C[M], R, Rest>]
    : readonly [method: MethodNameOf<C>, params?: Record<string, unknown>]
  : E extends { readonly method: infer M }
    ? M extends MethodNameOf<C>
      ? CommandFor<C[M], R, M, E>
      : { method: MethodNameOf<C>; params?: Record<string, unknown>; as?: string }
    : readonly [method: MethodNameOf<C>, params?: Record<string, unknown>]

/**
 * The commands `L` of a batch (a list or an object of named commands), each checked by {@link CheckedCommand}. One
 * check per command the caller wrote, never a union of every documented method, so a batch of any size type-checks
 * in time linear in its commands.
 */
export type CheckedCommands<C, R, L> = { [K in keyof L]: CheckedCommand<C, R, L[K]> }

/** The method a command names (tuple or object form). */
export type MethodOf<E> = E extends readonly [infer M, ...unknown[]]
  ? M
  : E extends { readonly method: infer M }
    ? M
    : never

/** The methods the commands `L` (a list or an object of named commands) name. */
export type MethodsOf<L> = MethodOf<L extends readonly unknown[] ? L[number] : L[keyof L]>

/**
 * What `calls` must be for the commands `L`: `L` itself, each command checked ({@link CheckedCommands}). When a
 * command names a method the catalogue lacks, the checks alone: `L`'s own method name would meet the documented
 * names in an intersection, which is `never` (the error would say so), where alone they fail with "Did you mean".
 * `L` is inferred from `calls` alone: `NoInfer` spares TypeScript inferring it back through every command's check.
 */
export type CheckedCalls<C, R, L> = [MethodsOf<L>] extends [MethodNameOf<C>]
  ? L & NoInfer<CheckedCommands<C, R, L>>
  : NoInfer<CheckedCommands<C, R, L>>
