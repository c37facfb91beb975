import { afterEach, describe, expect, it } from 'vitest'
import { accessTokenMachine } from '../../machines/index.js'
import { type TokenPath, tokenPathTitle, tokenShortestPaths, tokenSimplePaths } from './access-token.model.js'
import { ClientTransitions } from './client-transitions.js'
import { machineGraph } from './machine-coverage.js'
import { type ModelRig, startModelRig } from './model-rig.js'
import { TokenPathDriver } from './token-path-driver.js'

/** The transitions every client of this file took by itself, seen through its `inspect` option. */
const taken = new ClientTransitions()
let open: { rig: ModelRig; driver: TokenPathDriver } | null = null

afterEach(async () => {
  if (!open) return
  const { rig, driver } = open
  open = null
  try {
    await driver.settle()
  } finally {
    await rig.close()
  }
})

async function runPath(path: TokenPath): Promise<void> {
  const rig = await startModelRig({ inspect: taken.inspect })
  const driver = new TokenPathDriver(rig)
  open = { rig, driver }
  await driver.run(path)
}

describe('access-token machine, shortest paths (one per transition and refresh outcome)', () => {
  it.each(tokenShortestPaths().map((path) => [tokenPathTitle(path), path] as const))('%s', (_title, path) =>
    runPath(path),
  )
})

describe('access-token machine, simple paths (before and after a refresh outcome)', () => {
  it.each(tokenSimplePaths().map((path) => [tokenPathTitle(path), path] as const))('%s', (_title, path) =>
    runPath(path),
  )
})

// Runs after the paths above (vitest runs a file's tests in order).
describe('access-token machine, coverage by the client itself', () => {
  it('the clients of the paths above took every transition of the definition', () => {
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
