// The one reader of the generated table's packed entries (see scripts/catalogue/emit-catalogue.ts for the writer).

/** Methods as the generated file packs them: name -> `scopes|w or r|required parameters|page|replacement`. */
export type PackedMethods = Readonly<Record<string, string>>

/** What a packed entry says that a program acts on. */
export interface UnpackedMethod {
  /** The scopes as the documentation writes them (`user,user_brief,user_basic`); any one grants the method. */
  readonly scopeList: string
  /** Whether it changes data (`w`; `r` reads). */
  readonly writes: boolean
  /** Required parameters; a dotted name is a field of an object parameter (`fields.COMPANY_ID`). */
  readonly required: readonly string[]
}

/** Reads one packed entry. */
export function unpackMethod(packed: string): UnpackedMethod {
  const [scopeList = '', flag, required = ''] = packed.split('|', 3)
  return { scopeList, writes: flag !== 'r', required: required === '' ? [] : required.split(',') }
}
