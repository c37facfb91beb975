/** A documented `boolean`: the portal takes `Y`/`N` (most methods), `1`/`0` or `true`/`false`. */
export type Flag = boolean | 'Y' | 'N' | 0 | 1

/** A reference to another object or a directory entry (`user`, `crm_status`, `catalog_product.id`). */
export type Id = string | number

/** An integer id: a number, or a numeric string as results carry v2 ids (`"ID": "410"`), which the portal takes. */
export type NumericId = number | `${number}`

/** An object of fields the docs do not list one by one. */
export type Obj = Record<string, unknown>

/** The parameters of a method that takes none. */
export type NoParams = Record<string, never>
