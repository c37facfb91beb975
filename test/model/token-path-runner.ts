import { afterEach } from 'vitest'
import type { InspectOption } from '../../src/index.js'
import type { TokenPath } from './access-token.model.js'
import { type ModelRig, startModelRig } from './model-rig.js'
import { TokenPathDriver } from './token-path-driver.js'

/**
 * Runs paths of the access-token model, each on its own rig, and closes the rig after each test (letting a refresh
 * still in flight end first). `inspect` observes every client the runner starts.
 */
export function usePathRunner(inspect?: InspectOption): (path: TokenPath) => Promise<void> {
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
  return async (path) => {
    const rig = await startModelRig(inspect ? { inspect } : {})
    const driver = new TokenPathDriver(rig)
    open = { rig, driver }
    await driver.run(path)
  }
}
