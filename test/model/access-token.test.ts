import { afterEach, describe, it } from 'vitest'
import { type TokenPath, tokenPathTitle, tokenShortestPaths, tokenSimplePaths } from './access-token.model.js'
import { type ModelRig, startModelRig } from './model-rig.js'
import { TokenPathDriver } from './token-path-driver.js'

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
  const rig = await startModelRig()
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
