import { afterEach, describe, expect, it } from 'vitest'
import { adminFlagMachine } from '../../machines/index.js'
import { type AdminPath, adminPathTitle, adminShortestPaths, adminSimplePaths } from './admin-flag.model.js'
import { AdminPathDriver } from './admin-path-driver.js'
import { ClientTransitions } from './client-transitions.js'
import { machineGraph } from './machine-coverage.js'
import { type ModelRig, startModelRig } from './model-rig.js'

/** The transitions every client of this file took by itself, seen through its `inspect` option. */
const taken = new ClientTransitions()
let open: { rig: ModelRig; driver: AdminPathDriver } | null = null

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

async function runPath(path: AdminPath): Promise<void> {
  const rig = await startModelRig({ inspect: taken.inspect })
  const driver = new AdminPathDriver(rig)
  open = { rig, driver }
  await driver.run(path)
}

describe('admin-flag machine, shortest paths (one per transition and profile answer)', () => {
  it.each(adminShortestPaths().map((path) => [adminPathTitle(path), path] as const))('%s', (_title, path) =>
    runPath(path),
  )
})

describe('admin-flag machine, simple paths (states with their cached flag)', () => {
  it.each(adminSimplePaths().map((path) => [adminPathTitle(path), path] as const))('%s', (_title, path) =>
    runPath(path),
  )
})

// Runs after the paths above (vitest runs a file's tests in order).
describe('admin-flag machine, coverage by the client itself', () => {
  it('the clients of the paths above took every transition of the definition', () => {
    const { transitions } = machineGraph(adminFlagMachine)
    expect(transitions.length).toBeGreaterThan(0)
    const clientTook = taken.taken(adminFlagMachine.id)
    const missing = transitions.filter((transition) => !clientTook.includes(transition))
    expect(
      missing,
      'transitions no client took: add a step for the event (docs/model-based-testing.md)',
    ).toEqual([])
  })
})
