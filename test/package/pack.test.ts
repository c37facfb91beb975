import { execFile, spawn } from 'node:child_process'
import { once } from 'node:events'
import { cp, mkdir, mkdtemp, readdir, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises'
import { type AddressInfo, connect, createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { createInterface } from 'node:readline'
import { setTimeout as sleep } from 'node:timers/promises'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { CONSUMER_COMPILER_OPTIONS } from '../../scripts/dev/consumer-compiler-options.js'
import { documentedTarball, tarballMatches } from '../../scripts/docs/packed-size-lib.js'

const run = promisify(execFile)
const root = fileURLToPath(new URL('../..', import.meta.url))
const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc')
let workdir = ''
/** The tarball `npm pack` wrote. */
let tarballPath = ''
/** An empty application with the packed package installed from its tarball. */
let app = ''
let installed = ''

beforeAll(async () => {
  workdir = await mkdtemp(join(tmpdir(), 'portal-oauth-pack-'))
  const packed = await run('npm', ['pack', '--pack-destination', workdir, '--silent'], {
    cwd: root,
    maxBuffer: 1 << 24,
  })
  const tarball = packed.stdout.trim().split('\n').at(-1) ?? ''
  expect(tarball).toMatch(/^portal-oauth-\d+\.\d+\.\d+\.tgz$/)
  tarballPath = join(workdir, tarball)
  app = join(workdir, 'app')
  installed = join(app, 'node_modules', 'portal-oauth')
  await mkdir(app, { recursive: true })
  // No "type": each file says what it is by its extension.
  await writeFile(join(app, 'package.json'), JSON.stringify({ name: 'app', private: true }))
  await run('npm', ['install', '--no-audit', '--no-fund', '--omit=dev', join(workdir, tarball)], {
    cwd: app,
    maxBuffer: 1 << 24,
  })
  // The application's own ioredis and node-redis (optional peer dependencies): the ones of this repository, linked.
  await symlink(join(root, 'node_modules', 'ioredis'), join(app, 'node_modules', 'ioredis'), 'dir')
  await symlink(join(root, 'node_modules', 'redis'), join(app, 'node_modules', 'redis'), 'dir')
  await symlink(join(root, 'node_modules', '@redis'), join(app, 'node_modules', '@redis'), 'dir')
  // Likewise @opentelemetry/api, for portal-oauth/otel.
  await mkdir(join(app, 'node_modules', '@opentelemetry'), { recursive: true })
  await symlink(
    join(root, 'node_modules', '@opentelemetry', 'api'),
    join(app, 'node_modules', '@opentelemetry', 'api'),
    'dir',
  )
}, 180_000)

afterAll(async () => {
  if (workdir) await rm(workdir, { recursive: true, force: true })
})

/** Runs a file of the application with the Node running the tests; its stdout as JSON. */
async function runApp(file: string, source: string): Promise<unknown> {
  await writeFile(join(app, file), source)
  const { stdout } = await run(process.execPath, [file], { cwd: app })
  return JSON.parse(stdout)
}

/** One call through each entry point: the emulator from `/testing`, a client from `.`, the machine from `/machines`. */
const EXERCISE = `
  const emulator = await startPortalEmulator()
  const portal = new PortalOAuth(emulator.issueAuthParams(), { clientId: emulator.clientId, clientSecret: emulator.clientSecret })
  const result = await portal.actions.v3.call.make({ method: 'tasks.task.list' })
  await portal.destroy()
  await emulator.close()
  const [entry] = emulator.log.restRequests()
  console.log(JSON.stringify({
    ok: result.isSuccess,
    machine: accessTokenMachine.id,
    local: EnumAppStatus.Local,
    userAgent: entry.headers['user-agent'],
  }))
`

describe('the packed package', () => {
  it('weighs what docs/catalogue.md states (within the tolerance of npm run docs:packed-size)', async () => {
    const documented = documentedTarball(await readFile(join(root, 'docs', 'catalogue.md'), 'utf8'))
    const measured = (await stat(tarballPath)).size
    expect(documented, 'docs/catalogue.md states no tarball size').toBeDefined()
    expect(
      tarballMatches(documented ?? 0, measured),
      `docs/catalogue.md states ${documented} bytes, the tarball is ${measured}: run npm run docs:packed-size -- --write`,
    ).toBe(true)
  })

  it('ships only what users need: no tests, no sources of the scripts', async () => {
    const shipped = await readdir(installed)
    expect(shipped.sort()).toEqual(['LICENSE', 'README.md', 'dist', 'docs', 'package.json'].sort())
  })

  it('import works from an ES module for all three entry points', async () => {
    const out = await runApp(
      'main.mjs',
      `import { PortalOAuth, EnumAppStatus } from 'portal-oauth'
       import { accessTokenMachine } from 'portal-oauth/machines'
       import { startPortalEmulator } from 'portal-oauth/testing'
       ${EXERCISE}`,
    )
    expect(out).toMatchObject({ ok: true, machine: 'accessToken', local: 'L' })
  }, 60_000)

  it('require() works from a CommonJS file for all three entry points', async () => {
    const out = await runApp(
      'main.cjs',
      `const { PortalOAuth, EnumAppStatus } = require('portal-oauth')
       const { accessTokenMachine } = require('portal-oauth/machines')
       const { startPortalEmulator } = require('portal-oauth/testing')
       void (async () => { ${EXERCISE} })()`,
    )
    expect(out).toMatchObject({ ok: true, machine: 'accessToken', local: 'L' })
  }, 60_000)

  it("importing portal-oauth never loads ioredis or node-redis; portal-oauth/redis works on the application's client", async () => {
    const probe = `
      const loaded = () => Object.keys(require.cache).some((path) => /[\\\\/](ioredis|redis|@redis)[\\\\/]/.test(path))
      const afterMain = loaded()
      const { RedisStore } = await import('portal-oauth/redis')
      const afterRedisEntry = loaded()
      const { Redis } = await import('ioredis')
      const client = new Redis({ lazyConnect: true })
      const store = new RedisStore(client, { prefix: 'app:' })
      await store.close()
      client.disconnect()
      const { createClient } = await import('redis')
      const nodeRedis = new RedisStore(createClient(), { prefix: 'app:' })
      await nodeRedis.close()
      console.log(JSON.stringify({ afterMain, afterRedisEntry, afterClient: loaded(), store: store.constructor.name, nodeRedis: nodeRedis.constructor.name }))
    `
    const esm = await runApp(
      'redis.mjs',
      `import { createRequire } from 'node:module'
       import { PortalOAuth } from 'portal-oauth'
       const require = createRequire(import.meta.url)
       void PortalOAuth
       ${probe}`,
    )
    const cjs = await runApp(
      'redis.cjs',
      `const { PortalOAuth } = require('portal-oauth')
       void PortalOAuth
       void (async () => { ${probe} })()`,
    )
    const expected = {
      afterMain: false,
      afterRedisEntry: false,
      afterClient: true,
      store: 'RedisStore',
      nodeRedis: 'RedisStore',
    }
    expect(esm).toEqual(expected)
    expect(cjs).toEqual(expected)
  }, 60_000)

  it('importing portal-oauth never loads the method catalogue; a call loads it and warns of a missing scope, from ESM and CommonJS', async () => {
    const probe = (load: string) => `
      const { registerHooks } = ${load}('node:module')
      const urls = []
      registerHooks({ load: (url, context, next) => (urls.push(url), next(url, context)) })
      const loaded = () => urls.some((url) => url.endsWith('/catalogue/methods.generated.js'))
      const { PortalOAuth } = ${load}('portal-oauth')
      const afterMain = loaded()
      const { startPortalEmulator } = ${load}('portal-oauth/testing')
      const emulator = await startPortalEmulator({ scope: 'user' })
      const warnings = []
      const logger = { debug() {}, info() {}, warn: (message) => warnings.push(message), error() {} }
      const secret = { clientId: emulator.clientId, clientSecret: emulator.clientSecret }
      const portal = new PortalOAuth(emulator.issueAuthParams(), secret, { logger })
      await portal.actions.v2.call.make({ method: 'crm.item.list', params: { entityTypeId: 2 } })
      await portal.destroy()
      await emulator.close()
      console.log(JSON.stringify({ afterMain, afterCall: loaded(), warnings }))`
    const expected = {
      afterMain: false,
      afterCall: true,
      warnings: [expect.stringMatching(/^PortalOAuth: v2 crm\.item\.list needs scope crm /)],
    }
    expect(await runApp('catalogue.mjs', probe('await import'))).toEqual(expected)
    expect(await runApp('catalogue.cjs', `void (async () => { ${probe('require')} })()`)).toEqual(expected)
  }, 60_000)

  it('importing portal-oauth never loads @opentelemetry/api; portal-oauth/otel does, and instruments', async () => {
    const out = await runApp(
      'otel.mjs',
      `import { registerHooks } from 'node:module'
       const resolved = []
       registerHooks({ resolve: (specifier, context, next) => (resolved.push(specifier), next(specifier, context)) })
       const loaded = () => resolved.some((specifier) => specifier.startsWith('@opentelemetry/'))
       await import('portal-oauth')
       const afterMain = loaded()
       const { instrumentPortalOAuth } = await import('portal-oauth/otel')
       instrumentPortalOAuth().disable()
       console.log(JSON.stringify({ afterMain, afterOtel: loaded() }))`,
    )
    expect(out).toEqual({ afterMain: false, afterOtel: true })
  }, 60_000)

  it('portal-oauth/otel without @opentelemetry/api installed fails naming the package to install, from ESM and CommonJS', async () => {
    // The same application without the optional peer dependency: a copy, since a symlinked package would still
    // find the original's node_modules.
    const bare = join(workdir, 'app-without-otel')
    await cp(app, bare, { recursive: true, verbatimSymlinks: true })
    await rm(join(bare, 'node_modules', '@opentelemetry'), { recursive: true, force: true })
    const attempt = async (file: string, source: string) => {
      await writeFile(join(bare, file), source)
      return run(process.execPath, [file], { cwd: bare }).then(
        () => 'loaded',
        (error: { stderr?: string }) => error.stderr ?? '',
      )
    }
    const esm = await attempt('otel.mjs', `import 'portal-oauth'\nimport 'portal-oauth/otel'\n`)
    const cjs = await attempt('otel.cjs', `require('portal-oauth')\nrequire('portal-oauth/otel')\n`)
    for (const stderr of [esm, cjs]) {
      expect(stderr).toContain(
        'portal-oauth/otel needs @opentelemetry/api, an optional peer dependency that is not installed: npm install @opentelemetry/api',
      )
      expect(stderr).not.toContain('ERR_MODULE_NOT_FOUND')
    }
    // The main entry point alone never needs it.
    expect(await attempt('main.mjs', `import { PortalOAuth } from 'portal-oauth'\nvoid PortalOAuth\n`)).toBe(
      'loaded',
    )
  }, 60_000)

  it('the User-Agent carries the version of the installed package.json', async () => {
    // An upgrade changes package.json; nothing else in the package may need to follow.
    const manifestPath = join(installed, 'package.json')
    const manifest = await readFile(manifestPath, 'utf8')
    const upgraded = { ...(JSON.parse(manifest) as Record<string, unknown>), version: '3.99.1-upgrade.7' }
    await writeFile(manifestPath, JSON.stringify(upgraded))
    try {
      const out = await runApp(
        'agent.mjs',
        `import { PortalOAuth, EnumAppStatus } from 'portal-oauth'
         import { accessTokenMachine } from 'portal-oauth/machines'
         import { startPortalEmulator } from 'portal-oauth/testing'
         ${EXERCISE}`,
      )
      expect(out).toMatchObject({ ok: true, userAgent: 'portal-oauth/3.99.1-upgrade.7' })
    } finally {
      await writeFile(manifestPath, manifest)
    }
  }, 60_000)

  it('the portal-oauth binary runs from the installed package: --help, the emulator, a call and types on its pair', async () => {
    const bin = join(app, 'node_modules', '.bin', 'portal-oauth')
    const help = await run(bin, ['--help'], { cwd: app })
    expect(help.stdout).toMatch(/^Usage: portal-oauth <command>/)
    for (const command of ['emulator', 'call', 'fleet', 'types', 'completion'])
      expect((await run(bin, [command, '--help'], { cwd: app })).stdout).toMatch(
        new RegExp(`^Usage: portal-oauth ${command}`),
      )
    const emulator = spawn(bin, ['emulator', '--json'], { cwd: app, stdio: ['ignore', 'pipe', 'inherit'] })
    try {
      const [line] = (await once(createInterface({ input: emulator.stdout }), 'line')) as [string]
      const info = JSON.parse(line) as {
        pair: object
        clientId: string
        clientSecret: string
        oauthServer: string
      }
      await writeFile(join(app, 'pair.json'), JSON.stringify(info.pair))
      const called = await run(bin, ['call', 'profile', '--pair', 'pair.json'], {
        cwd: app,
        env: {
          ...process.env,
          PORTAL_OAUTH_CLIENT_ID: info.clientId,
          PORTAL_OAUTH_CLIENT_SECRET: info.clientSecret,
          PORTAL_OAUTH_TRUSTED_SERVERS: info.oauthServer,
        },
      })
      expect(JSON.parse(called.stdout)).toMatchObject({ ID: '1', ADMIN: true })
      const typed = await run(bin, ['types', '--pair', 'pair.json', '--out', 'portal-types.ts'], {
        cwd: app,
        env: {
          ...process.env,
          PORTAL_OAUTH_CLIENT_ID: info.clientId,
          PORTAL_OAUTH_CLIENT_SECRET: info.clientSecret,
          PORTAL_OAUTH_TRUSTED_SERVERS: info.oauthServer,
        },
      })
      expect(typed.stderr).not.toContain('Error')
      const module = await readFile(join(app, 'portal-types.ts'), 'utf8')
      expect(module).toContain('export function withPortalTypes')
      expect(module).toMatch(/UF_CRM_\w+/)
    } finally {
      emulator.kill('SIGTERM')
    }
    const [code] = (await once(emulator, 'exit')) as [number | null]
    expect(code).toBe(0)
    const completion = await run(bin, ['completion', 'bash'], { cwd: app, maxBuffer: 1 << 24 })
    expect(completion.stdout).toContain(' crm.deal.list ')
  }, 60_000)

  it('npx portal-oauth emulator & then kill %1: the emulator stops with npm and frees its port', async () => {
    // npm exec does not pass SIGTERM on to the command it runs: the emulator notices its parent is gone.
    const port = await new Promise<number>((done) => {
      const probe = createServer().listen(0, '127.0.0.1', () => {
        const { port: free } = probe.address() as AddressInfo
        probe.close(() => done(free))
      })
    })
    const script = [
      'set -e',
      `npx portal-oauth emulator --json --port ${port} > emulator.jsonl 2> emulator.err &`,
      'until [ -s emulator.jsonl ]; do sleep 0.1; done',
      `curl -s -o /dev/null -w '%{http_code}\\n' http://127.0.0.1:${port}/rest/server.time`,
      'kill %1',
      'wait %1 || true',
    ].join('\n')
    const path = `${dirname(process.execPath)}:${process.env.PATH}`
    const { stdout } = await run('bash', ['-c', script], { cwd: app, env: { ...process.env, PATH: path } })
    // The portal answered while it ran (401: no token).
    expect(stdout).toBe('401\n')
    const refused = async (): Promise<boolean> =>
      new Promise((done) => {
        const socket = connect(port, '127.0.0.1')
        socket.once('connect', () => {
          socket.destroy()
          done(false)
        })
        socket.once('error', () => done(true))
      })
    let free = await refused()
    for (let look = 0; look < 50 && !free; look++) {
      await sleep(100)
      free = await refused()
    }
    expect(free).toBe(true)
  }, 60_000)

  it('ships no source maps, and no JavaScript file points at one (the JavaScript is the source without its types)', async () => {
    const files = await readdir(join(installed, 'dist'), { recursive: true })
    expect(files.filter((file) => file.endsWith('.map'))).toEqual([])
    const pointing: string[] = []
    for (const file of files.filter((name) => name.endsWith('.js'))) {
      if ((await readFile(join(installed, 'dist', file), 'utf8')).includes('//# sourceMappingURL='))
        pointing.push(file)
    }
    expect(pointing).toEqual([])
    // Nor declarations that no entry point exports: the command line's.
    expect(files.filter((file) => file.startsWith('src/cli/') && file.endsWith('.d.ts'))).toEqual([])
    expect(files).toContain('src/cli/main.js')
    // Nor the page about the repository's own test suite, nor the record of its benchmark runs.
    const docs = await readdir(join(installed, 'docs'))
    expect(docs).toContain('guide.md')
    expect(docs).not.toContain('testing.md')
    expect(docs).not.toContain('benchmarks.md')
    // What a stack trace into the package shows: the JavaScript with its line comments; the doc comments of what
    // its declarations carry are in the .d.ts beside it, once (npm run build takes them out of the JavaScript).
    const javascript = await readFile(join(installed, 'dist', 'src', 'portal-oauth.js'), 'utf8')
    const declarations = await readFile(join(installed, 'dist', 'src', 'portal-oauth.d.ts'), 'utf8')
    expect(javascript).toContain('// initIsAdmin() reads `profile`')
    expect(declarations).toMatch(/\/\*\*\n \* [^\n]+\n[\s\S]*export declare class PortalOAuth/)
    expect(javascript).not.toMatch(/\/\*\*\n \* /)
  })

  it('a strict consumer that checks its libraries too (skipLibCheck: false) compiles against every entry point', async () => {
    // The entries other than portal-oauth/machines load no XState declarations, which fail such a check under
    // exactOptionalPropertyTypes; there the actors and inspection events are typed without XState.
    await writeFile(
      join(app, 'libcheck.mts'),
      `
      import { type InspectOption, PortalOAuth } from 'portal-oauth'
      import { instrumentPortalOAuth } from 'portal-oauth/otel'
      import { RedisStore } from 'portal-oauth/redis'
      import { startPortalEmulator } from 'portal-oauth/testing'

      const seen: string[] = []
      const inspect: InspectOption = (event) => {
        if (event.type === '@xstate.snapshot') seen.push(event.snapshot.status)
      }
      const emulator = await startPortalEmulator()
      const portal = new PortalOAuth(
        emulator.issueAuthParams(),
        { clientId: emulator.clientId, clientSecret: emulator.clientSecret },
        { inspect },
      )
      const value: string | { readonly [state: string]: unknown } = portal.auth.tokenActor.getSnapshot().value
      portal.auth.tokenActor.subscribe((snapshot) => seen.push(String(snapshot.matches('valid'))))
      // @ts-expect-error Without portal-oauth/machines the actor is typed by what it offers to read, not XState's Actor.
      portal.auth.tokenActor.send({ type: 'refresh.requested' })
      export const used = [value, instrumentPortalOAuth, RedisStore]
      `,
    )
    // With portal-oauth/machines (which loads XState), they are XState's own types. XState 5.33's own declarations
    // fail under exactOptionalPropertyTypes without skipLibCheck (setup.d.ts), so this file is checked without it.
    await writeFile(
      join(app, 'machines.mts'),
      `
      import { PortalOAuth } from 'portal-oauth'
      import type {} from 'portal-oauth/machines'
      import { startPortalEmulator } from 'portal-oauth/testing'
      import { type InspectionEvent, waitFor } from 'xstate'

      const events: InspectionEvent[] = []
      const emulator = await startPortalEmulator()
      const portal = new PortalOAuth(
        emulator.issueAuthParams(),
        { clientId: emulator.clientId, clientSecret: emulator.clientSecret },
        { inspect: (event) => events.push(event) },
      )
      await waitFor(portal.auth.tokenActor, (snapshot) => snapshot.matches('valid'))
      await waitFor(portal.auth.adminActor, (snapshot) => snapshot.matches('notInitialised'))
      `,
    )
    const failures: string[] = []
    for (const [file, options] of [
      ['libcheck.mts', {}],
      ['machines.mts', { exactOptionalPropertyTypes: false }],
    ] as const) {
      const config = join(app, `tsconfig.${file}.json`)
      await writeFile(
        config,
        JSON.stringify({
          compilerOptions: {
            ...CONSUMER_COMPILER_OPTIONS,
            ...options,
            skipLibCheck: false,
            noEmit: true,
            typeRoots: [join(root, 'node_modules', '@types')],
          },
          files: [file],
        }),
      )
      await run(process.execPath, [tsc, '-p', config], { cwd: app, maxBuffer: 1 << 24 }).catch(
        (error: { stdout?: string }) => failures.push(`${file}:\n${error.stdout ?? String(error)}`),
      )
    }
    expect(failures).toEqual([])
  }, 60_000)

  it('a TypeScript consumer without @types/node is told to install it; once installed, the declarations compile without listing it', async () => {
    // A copy of the application: @types/node is installed into it halfway through.
    const bare = join(workdir, 'app-without-node-types')
    await cp(app, bare, { recursive: true, verbatimSymlinks: true })
    await writeFile(
      join(bare, 'entries.mts'),
      `
      import { PortalOAuth } from 'portal-oauth'
      import type {} from 'portal-oauth/machines'
      import { instrumentPortalOAuth } from 'portal-oauth/otel'
      import { RedisStore } from 'portal-oauth/redis'
      import { startPortalEmulator } from 'portal-oauth/testing'
      export const used = [PortalOAuth, instrumentPortalOAuth, RedisStore, startPortalEmulator]
      `,
    )
    // `types: []` and no DOM: the consumer names no global types of its own.
    const config = join(bare, 'tsconfig.json')
    await writeFile(
      config,
      JSON.stringify({
        compilerOptions: {
          ...CONSUMER_COMPILER_OPTIONS,
          exactOptionalPropertyTypes: false,
          skipLibCheck: false,
          noEmit: true,
          lib: ['es2023'],
          types: [],
        },
        files: ['entries.mts'],
      }),
    )
    const check = () =>
      run(process.execPath, [tsc, '-p', config], { cwd: bare, maxBuffer: 1 << 24 }).then(
        () => '',
        (error: { stdout?: string }) => error.stdout ?? String(error),
      )
    const manifest = JSON.parse(await readFile(join(installed, 'package.json'), 'utf8')) as {
      peerDependencies: Record<string, string>
      peerDependenciesMeta: Record<string, { optional?: boolean }>
    }
    expect(manifest.peerDependencies['@types/node']).toBe('>=22.19.0')
    expect(manifest.peerDependenciesMeta['@types/node']).toEqual({ optional: true })
    const without = await check()
    expect(without).toMatch(
      /node_modules\/portal-oauth\/dist\/src\/index\.d\.ts\(\d+,\d+\): error TS2688: Cannot find type definition file for 'node'\./,
    )
    await mkdir(join(bare, 'node_modules', '@types'), { recursive: true })
    await symlink(
      join(root, 'node_modules', '@types', 'node'),
      join(bare, 'node_modules', '@types', 'node'),
      'dir',
    )
    expect(await check()).toBe('')
  }, 60_000)

  it('types resolve for every entry point under node16, nodenext and bundler, from ESM and CommonJS', async () => {
    const usage = `
      const hook: PortalHook = PortalHook.fromWebhookUrl(process.env.PORTAL_WEBHOOK_URL)
      const secret: PortalOAuthSecretInput = { clientId: process.env.CLIENT_ID, clientSecret: process.env.CLIENT_SECRET }
      const machineId: string = accessTokenMachine.id
      const start: () => Promise<PortalEmulator> = startPortalEmulator
      const store: TokenStore = new RedisStore(new Redis({ lazyConnect: true }), { prefix: 'app:' })
      export const used = [hook, secret, machineId, start, store]
    `
    const imports = `
      import { Redis } from 'ioredis'
      import { PortalHook, type PortalOAuthSecretInput, type TokenStore } from 'portal-oauth'
      import { RedisStore } from 'portal-oauth/redis'
      import { accessTokenMachine } from 'portal-oauth/machines'
      import { type PortalEmulator, startPortalEmulator } from 'portal-oauth/testing'
    `
    await writeFile(join(app, 'esm.mts'), imports + usage)
    // In a .cts file these imports compile to require() calls.
    await writeFile(join(app, 'cjs.cts'), imports + usage)
    await writeFile(join(app, 'bundled.ts'), imports + usage)
    const setups: Array<{ name: string; options: Record<string, unknown>; files: string[] }> = [
      { name: 'node16', options: { module: 'node16', moduleResolution: 'node16' }, files: ['esm.mts'] },
      {
        name: 'nodenext',
        options: { module: 'nodenext', moduleResolution: 'nodenext' },
        files: ['esm.mts', 'cjs.cts'],
      },
      {
        name: 'bundler',
        options: { module: 'preserve', moduleResolution: 'bundler' },
        files: ['bundled.ts'],
      },
    ]
    const failures: string[] = []
    for (const setup of setups) {
      const config = join(app, `tsconfig.${setup.name}.json`)
      await writeFile(
        config,
        JSON.stringify({
          compilerOptions: {
            ...setup.options,
            target: 'es2022',
            strict: true,
            noEmit: true,
            skipLibCheck: true,
            types: ['node'],
            typeRoots: [join(root, 'node_modules', '@types')],
          },
          files: setup.files,
        }),
      )
      await run(process.execPath, [tsc, '-p', config], { cwd: app, maxBuffer: 1 << 24 }).catch(
        (error: { stdout?: string }) => failures.push(`${setup.name}:\n${error.stdout ?? String(error)}`),
      )
    }
    expect(failures).toEqual([])
  }, 60_000)
})
