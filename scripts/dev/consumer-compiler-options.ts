/**
 * The compiler options of a strict consumer of the package: everything `strict` turns on and the checks a careful
 * project adds. The documentation's snippets (test/docs), the packed package's type checks (test/package) and the
 * catalogue's type-check budget (scripts/catalogue) compile under them.
 */
export const CONSUMER_COMPILER_OPTIONS = {
  target: 'es2022',
  module: 'nodenext',
  moduleResolution: 'nodenext',
  strict: true,
  noUncheckedIndexedAccess: true,
  exactOptionalPropertyTypes: true,
  noImplicitOverride: true,
  noImplicitReturns: true,
  noFallthroughCasesInSwitch: true,
  verbatimModuleSyntax: true,
  isolatedModules: true,
  skipLibCheck: true,
  types: ['node'],
  sourceMap: true,
  rootDir: '.',
  outDir: 'out',
} as const
