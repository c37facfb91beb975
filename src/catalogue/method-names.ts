import type { V2MethodParams, V3MethodParams } from './method-types.generated.js'

// Apart from call-types.ts, which the generated catalogue imports: the names come from the catalogue, the call
// shapes go into it, and neither file imports the other back.

/** A documented REST v2 method name (from the catalogue generated from the vendor's REST documentation). */
export type V2Method = keyof V2MethodParams & string

/** A documented REST v3 method name. */
export type V3Method = keyof V3MethodParams & string
