import { describe, it } from 'vitest'
import { tokenPathTitle, tokenSimplePaths } from './access-token.model.js'
import { usePathRunner } from './token-path-runner.js'

// The simple paths of the access-token model, in a file of their own so that they run beside the shortest paths.
const runPath = usePathRunner()

describe('access-token machine, simple paths (before and after a refresh outcome)', () => {
  it.each(tokenSimplePaths().map((path) => [tokenPathTitle(path), path] as const))('%s', (_title, path) =>
    runPath(path),
  )
})
