import { execFile } from 'node:child_process'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { runCli, startCliEmulator } from './cli-process.js'

const exec = promisify(execFile)
const ROOT = fileURLToPath(new URL('../..', import.meta.url))
const TSC = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc')

let dir = ''

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'portal-oauth-types-'))
})

afterEach(async () => {
  await rm(dir, { recursive: true, force: true })
})

/**
 * Type-checks `files` of `dir` as an ES module project whose `portal-oauth` is this repository's sources (compiled
 * with the repository's own settings: a consumer's stricter ones are checked on the built package, test/package).
 */
async function typeCheck(files: string[]): Promise<string> {
  await writeFile(join(dir, 'package.json'), JSON.stringify({ type: 'module' }))
  await writeFile(
    join(dir, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        target: 'es2022',
        module: 'nodenext',
        moduleResolution: 'nodenext',
        strict: true,
        noUncheckedIndexedAccess: true,
        verbatimModuleSyntax: true,
        skipLibCheck: true,
        types: ['node'],
        noEmit: true,
        paths: { 'portal-oauth': [join(ROOT, 'src', 'index.ts')] },
        typeRoots: [join(ROOT, 'node_modules', '@types')],
      },
      files,
    }),
  )
  return exec(process.execPath, [TSC, '-p', join(dir, 'tsconfig.json')], { maxBuffer: 1 << 24 }).then(
    () => '',
    (error: { stdout?: string }) => error.stdout ?? String(error),
  )
}

/** Calls that this portal's fields allow or refuse; `client` is the expression of the client. */
const CALLS = (client: string): string => `
  export async function calls(pair: PortalOAuthParams): Promise<void> {
    const portal = ${client}
    await portal.actions.v2.call.make({
      method: 'crm.deal.add',
      params: { fields: { TITLE: 'Deal', UF_CRM_BUDGET: 1500, UF_CRM_REGION: 42, UF_CRM_TAGS: ['a', 'b'], UF_CRM_VIP: 'Y' } },
    })
    // @ts-expect-error the budget is a number on this portal
    await portal.actions.v2.call.make({ method: 'crm.deal.add', params: { fields: { UF_CRM_BUDGET: 'lots' } } })
    // @ts-expect-error 44 is no region of this portal
    await portal.actions.v2.call.make({ method: 'crm.deal.update', params: { id: 1, fields: { UF_CRM_REGION: 44 } } })
    // @ts-expect-error Gold is 53, not a word
    await portal.actions.v2.call.make({ method: 'crm.contact.add', params: { fields: { UF_CRM_LOYALTY: 'Gold' } } })
    await portal.actions.v2.call.make({ method: 'user.get', params: { ID: 1 } })
    // @ts-expect-error the rest of the catalogue is still checked
    await portal.actions.v2.call.make({ method: 'user.gett' })
    await portal.actions.v3.call.make({ method: 'tasks.task.get', params: { id: 1 } })
  }
`

describe('portal-oauth types', () => {
  it("generates a module whose withPortalTypes() checks the portal's user fields, from the emulator", async () => {
    const emulator = await startCliEmulator()
    const pairFile = join(dir, 'tokens.json')
    await writeFile(pairFile, JSON.stringify(emulator.info.pair))
    const run = await runCli(['types', '--pair', pairFile, '--out', join(dir, 'portal-types.ts')], {
      PORTAL_OAUTH_CLIENT_ID: emulator.info.clientId,
      PORTAL_OAUTH_CLIENT_SECRET: emulator.info.clientSecret,
      PORTAL_OAUTH_TRUSTED_SERVERS: emulator.info.oauthServer,
    })
    expect(run).toMatchObject({ code: 0, stdout: '' })
    expect(run.stderr).toContain(`written to ${join(dir, 'portal-types.ts')}`)
    const module = await readFile(join(dir, 'portal-types.ts'), 'utf8')
    expect(module).toContain("UF_CRM_REGION?: 41 | 42 | 43 | '41' | '42' | '43'")
    expect(module).toContain('ufCrmBudget?: number')
    expect(module).toContain("'landing.aisite.status': { siteId: number }")
    expect(module).not.toContain("'tasks.task.get'")
    const log = (await emulator.control('GET', '/log?kind=rest')).body as Array<{ restMethod: string }>
    expect(new Set(log.map((entry) => entry.restMethod))).toEqual(
      new Set([
        'crm.lead.fields',
        'crm.deal.fields',
        'crm.contact.fields',
        'crm.company.fields',
        'crm.item.fields',
        'rest.documentation.openapi',
      ]),
    )

    const preamble = `
      import { PortalOAuth, type PortalOAuthParams } from 'portal-oauth'
      import { withPortalTypes } from './portal-types.js'
      const secret = { clientId: 'id', clientSecret: 'secret' }
      void withPortalTypes
    `
    await writeFile(
      join(dir, 'typed.mts'),
      `${preamble}${CALLS('withPortalTypes(new PortalOAuth(pair, secret))')}`,
    )
    // Without the module, the same refusals are not made: each @ts-expect-error above but the last is unused.
    await writeFile(join(dir, 'untyped.mts'), `${preamble}${CALLS('new PortalOAuth(pair, secret)')}`)
    expect(await typeCheck(['portal-types.ts', 'typed.mts'])).toBe('')
    const untyped = await typeCheck(['untyped.mts'])
    expect(untyped.match(/TS2578/g)).toHaveLength(3)
  }, 120_000)

  it('a portal that refuses a source leaves it out, says so on stderr, and still writes the rest', async () => {
    const emulator = await startCliEmulator()
    await emulator.control('PUT', '/methods/crm.lead.fields', {
      error: {
        code: 'insufficient_scope',
        description: 'The request requires higher privileges',
        status: 401,
      },
    })
    const pairFile = join(dir, 'tokens.json')
    await writeFile(pairFile, JSON.stringify(emulator.info.pair))
    const run = await runCli(['types', '--pair', pairFile], {
      PORTAL_OAUTH_CLIENT_ID: emulator.info.clientId,
      PORTAL_OAUTH_CLIENT_SECRET: emulator.info.clientSecret,
      PORTAL_OAUTH_TRUSTED_SERVERS: emulator.info.oauthServer,
    })
    expect(run.code).toBe(0)
    expect(run.stderr).toContain(
      'portal-oauth types: crm.lead.fields {}: The request requires higher privileges; left out',
    )
    expect(run.stdout).not.toContain('export interface LeadUserFields')
    expect(run.stdout).toContain('export interface LeadItemUserFields')
    expect(run.stdout).toContain('export interface DealUserFields')
  }, 60_000)
})
