import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import ts from 'typescript5'

/** The checks of a strict consumer. */
const CONSUMER_CHECKS = {
  strict: true,
  noUncheckedIndexedAccess: true,
  exactOptionalPropertyTypes: true,
  skipLibCheck: true,
  noEmit: true,
  types: [] as string[],
}

/** The compiler options a strict consumer's editor runs TypeScript 5.9's language service with. */
const OPTIONS: ts.CompilerOptions = {
  ...CONSUMER_CHECKS,
  module: ts.ModuleKind.NodeNext,
  moduleResolution: ts.ModuleResolutionKind.NodeNext,
  target: ts.ScriptTarget.ES2022,
  lib: ['lib.es2023.d.ts', 'lib.dom.d.ts'],
}

/** The text of the file an editor has open, and its version (a new one per edit). */
export interface OpenFile {
  readonly version: string
  readonly text: string
}

/**
 * TypeScript 5.9's language service (what tsserver runs) over one consumer file in `dir`, as an editor holds it:
 * `open()` gives the file's current text and version (the other files are read from disk). Used by
 * test/types/completions.test.ts and bench/completions.ts.
 */
export function consumerLanguageService(dir: string, file: string, open: () => OpenFile): ts.LanguageService {
  const host: ts.LanguageServiceHost = {
    getScriptFileNames: () => [file],
    getScriptVersion: (name) => (name === file ? open().version : '0'),
    getScriptSnapshot: (name) => {
      const text = name === file ? open().text : ts.sys.readFile(name)
      return text === undefined ? undefined : ts.ScriptSnapshot.fromString(text)
    },
    getCurrentDirectory: () => dir,
    getCompilationSettings: () => OPTIONS,
    getDefaultLibFileName: (settings) => ts.getDefaultLibFilePath(settings),
    fileExists: ts.sys.fileExists,
    readFile: ts.sys.readFile,
    readDirectory: ts.sys.readDirectory,
    directoryExists: ts.sys.directoryExists,
    getDirectories: ts.sys.getDirectories,
  }
  return ts.createLanguageService(host, ts.createDocumentRegistry())
}

/**
 * Writes the tsconfig.json of the consumer project in `dir` (its one file `consumer.ts`), with the same options:
 * what TypeScript 7's API opens.
 */
export function writeConsumerProject(dir: string): void {
  const compilerOptions = { ...CONSUMER_CHECKS, module: 'nodenext', target: 'es2022', lib: ['es2023', 'dom'] }
  writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions, files: ['consumer.ts'] }))
}
