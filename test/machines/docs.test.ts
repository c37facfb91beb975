import { readFile } from 'node:fs/promises'
import { dirname, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { renderMachineDocs } from '../../scripts/docs/machines-docs-lib.js'

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..')

describe('docs/machines', () => {
  const files = renderMachineDocs()

  it('documents every machine', () => {
    expect(files.map((file) => file.path)).toEqual([
      'docs/machines/access-token.md',
      'docs/machines/admin-flag.md',
      'docs/machines/store-health.md',
    ])
  })

  it.each(files.map((file) => [file.path, file] as const))(
    '%s matches the machine definitions (run `npm run docs:machines` after changing a machine)',
    async (path, file) => {
      const committed = await readFile(resolve(root, path), 'utf8').catch(() => '')
      expect(committed, `${path} is stale: run npm run docs:machines`).toBe(file.content)
    },
  )

  it('draws every transition of every state in the diagram', () => {
    const [accessToken, adminFlag, storeHealth] = files
    expect(accessToken?.content).toContain('stateDiagram-v2')
    expect(accessToken?.content).toContain('requesting --> expired : xstate.error.actor.refresh')
    expect(accessToken?.content).toContain('requesting --> dead : xstate.error.actor.refresh [isDeadPair]')
    expect(accessToken?.content).toContain('waitingToRetry --> requesting : after retryDelay')
    expect(accessToken?.content).toContain('state refreshing {')
    expect(accessToken?.content).toContain('valid --> expired : clock.tick [isPastExpiry]')
    expect(adminFlag?.content).toContain(
      'loading --> initialised : xstate.error.actor.loadIsAdmin [hasValue]',
    )
    expect(storeHealth?.content).toContain('up --> suspect : backend.unreachable')
    expect(storeHealth?.content).toContain('suspect --> down : xstate.error.actor.probe')
    expect(storeHealth?.content).toContain('down --> probing : after cooldown')
    expect(storeHealth?.content).toContain('probing --> down : xstate.error.actor.probe')
  })
})
