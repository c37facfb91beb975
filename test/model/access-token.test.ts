import { describe, expect, it } from 'vitest'
import { accessTokenMachine } from '../../machines/index.js'
import { tokenPathTitle, tokenShortestPaths } from './access-token.model.js'
import { ClientTransitions } from './client-transitions.js'
import { machineGraph } from './machine-coverage.js'
import { usePathRunner } from './token-path-runner.js'

/** The transitions every client of this file took by itself, seen through its `inspect` option. */
const taken = new ClientTransitions()
const runPath = usePathRunner(taken.inspect)

describe('access-token machine, shortest paths (one per transition and refresh outcome)', () => {
  it.each(tokenShortestPaths().map((path) => [tokenPathTitle(path), path] as const))('%s', (_title, path) =>
    runPath(path),
  )
})

// Runs after the paths above (vitest runs a file's tests in order). The shortest paths alone plan every transition;
// the simple paths run in access-token-simple.test.ts, beside this file.
describe('access-token machine, coverage by the client itself', () => {
  it('the clients of the shortest paths took every transition of the definition', () => {
    const { transitions } = machineGraph(accessTokenMachine)
    expect(transitions.length).toBeGreaterThan(0)
    const clientTook = taken.taken(accessTokenMachine.id)
    const missing = transitions.filter((transition) => !clientTook.includes(transition))
    expect(
      missing,
      'transitions no client took: add a step for the event (docs/model-based-testing.md)',
    ).toEqual([])
  })
})
