import type { EmulatorApiVersion, EmulatorMethodHandler } from './types.js'

// Apart from methods.ts: the registry there and the catalogue's generic methods (generic-methods.ts) both use these,
// and the registry's built-in methods use the generic methods' tables, so neither file imports the other back.

/** A registered REST method. */
export interface MethodDefinition {
  /** Lower-cased name. */
  name: string
  handler: EmulatorMethodHandler
  versions: ReadonlySet<EmulatorApiVersion>
}

/** Where the registry looks for a method nobody defined (the catalogue's generic answers); `name` is lower-cased. */
export type MethodFallback = (
  name: string,
  version: EmulatorApiVersion,
) => Promise<MethodDefinition | undefined>
