import { afterEach, describe, it } from 'vitest'
import { type AdminPath, adminPathTitle, adminShortestPaths, adminSimplePaths } from './admin-flag.model.js'
import { AdminPathDriver } from './admin-path-driver.js'
import { type ModelRig, startModelRig } from './model-rig.js'

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
  const rig = await startModelRig()
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
