/**
 * Documentation is code: every TypeScript block of README.md and docs/ is type-checked as a consumer of the built
 * package under strict settings, and every runnable one runs against the emulator (and a throwaway Redis when it
 * says so) and must end by itself. The markers are described in docs/testing.md.
 */
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type PortalEmulator, startPortalEmulator } from '../../src/testing/index.js'
import {
  REDIS_HINT,
  type RedisUnderTest,
  redisInstalled,
  redisRequired,
  startRedisServer,
} from '../redis/redis-server.js'
import { ConsumerProject, isTestFile, type SnippetRun, type TypeDiagnostic } from './consumer-project.js'
import { documentationSnippets, outputMatches, type Snippet } from './markdown-snippets.js'

const root = fileURLToPath(new URL('../..', import.meta.url))
const snippets = await documentationSnippets(root)
const runnable = snippets.filter((snippet) => !snippet.flags.has('no-run'))
/** Longest run of one snippet; a snippet that leaves a handle open hits it. */
const RUN_LIMIT_MS = 20_000
/** Snippets run side by side, but not more than the machine's two cores take. */
const PARALLEL_RUNS = 3

let project: ConsumerProject | undefined
let emulator: PortalEmulator | undefined
let redis: RedisUnderTest | undefined
let diagnostics: TypeDiagnostic[] = []
const runs = new Map<Snippet, SnippetRun | 'skipped'>()

beforeAll(async () => {
  const needsRedis = runnable.some((snippet) => snippet.flags.has('redis'))
  const [created, started, redisServer] = await Promise.all([
    ConsumerProject.create(root, snippets),
    startPortalEmulator({ rateLimit: false }),
    needsRedis && (redisInstalled || redisRequired) ? startRedisServer() : undefined,
  ])
  project = created
  emulator = started
  redis = redisServer
  // tsc also emits the JavaScript that runs (errors or not).
  diagnostics = await project.typeCheck(root)
  const queue = [...runnable]
  await Promise.all(
    Array.from({ length: PARALLEL_RUNS }, async () => {
      for (let snippet = queue.shift(); snippet; snippet = queue.shift()) {
        runs.set(snippet, await runOne(created, started, snippet))
      }
    }),
  )
}, 180_000)

afterAll(async () => {
  await Promise.all([project?.remove(), emulator?.close(), redis?.stop()])
})

/** What a snippet's process gets: the application's settings in the environment, pointing at the emulator. */
async function runOne(
  target: ConsumerProject,
  portal: PortalEmulator,
  snippet: Snippet,
): Promise<SnippetRun | 'skipped'> {
  const webhook = portal.createWebhook()
  const env: Record<string, string> = {
    CLIENT_ID: portal.clientId,
    CLIENT_SECRET: portal.clientSecret,
    PORTAL_WEBHOOK_URL: webhook,
    // The same webhook in parts: the portal's address and the secret of user 1.
    PORTAL_URL: portal.portalOrigin,
    HOOK_SECRET: new URL(webhook).pathname.split('/').at(-2) ?? '',
    OAUTH_SERVER_ENDPOINT: portal.serverEndpoint,
  }
  if (snippet.flags.has('redis')) {
    const node = redis?.nodes[0]
    if (!node) return 'skipped'
    env.REDIS_URL = `redis://${node.host}:${node.port}`
  }
  if (snippet.flags.has('fragment')) {
    env.SNIPPET_CONTEXT = JSON.stringify({
      tokens: portal.issueAuthParams(),
      clientId: portal.clientId,
      clientSecret: portal.clientSecret,
      memberId: portal.memberId,
      applicationToken: portal.applicationToken,
      fleetInstall: portal.installEvent('ONAPPINSTALL'),
      rawFormBody: portal.installEvent('ONAPPINSTALL'),
      code: portal.issueAuthorizationCode(),
    })
  }
  return target.run(snippet, env, RUN_LIMIT_MS)
}

const where = (snippet: Snippet): string =>
  `${snippet.file}:${snippet.line}${snippet.flags.size > 0 ? ` (${[...snippet.flags].join(' ')})` : ''}`

describe('the documentation', () => {
  it('has TypeScript blocks in README.md and docs/', () => {
    expect(snippets.some((snippet) => snippet.file === 'README.md')).toBe(true)
    expect(snippets.some((snippet) => snippet.file.startsWith('docs/'))).toBe(true)
  })

  it('has no type error outside the snippets (the package types, the context of fragments)', () => {
    expect(
      diagnostics.filter((diagnostic) => !diagnostic.snippet).map((diagnostic) => diagnostic.message),
    ).toEqual([])
  })
})

describe.each(snippets.map((snippet) => [where(snippet), snippet] as const))('%s', (_name, snippet) => {
  it('type-checks under strict consumer settings', () => {
    const own = diagnostics
      .filter((diagnostic) => diagnostic.snippet === snippet)
      .map((diagnostic) => diagnostic.message)
    expect(own).toEqual([])
  })

  it.skipIf(snippet.flags.has('no-run'))('runs against the emulator and ends by itself', (context) => {
    const outcome = runs.get(snippet)
    if (outcome === 'skipped') {
      context.skip(`redis-server is not installed (${REDIS_HINT})`)
      return
    }
    expect(outcome, `${snippet.file}:${snippet.line} was not run`).toBeDefined()
    const problem = outcome?.timedOut
      ? `did not end within ${RUN_LIMIT_MS} ms (a client, server or connection left open?)`
      : outcome?.exitCode !== 0
        ? `exited with ${outcome?.exitCode}`
        : undefined
    expect(problem, `${snippet.file}:${snippet.line} ${problem}\n${outcome?.stderr}`).toBeUndefined()
  })

  // A test file's output is vitest's report (its assertions are the check); a program's is what the reader sees.
  it.skipIf(snippet.flags.has('no-run') || isTestFile(snippet))(
    'prints what the page shows: its output block on stdout, nothing on stderr',
    (context) => {
      const outcome = runs.get(snippet)
      if (outcome === 'skipped' || outcome === undefined) {
        context.skip('the snippet did not run')
        return
      }
      const shown = snippet.output ?? ''
      expect(
        outputMatches(shown, outcome.stdout),
        `${snippet.file}:${snippet.line} printed\n${outcome.stdout}\nwhere the page shows${
          snippet.output === undefined ? ' no output' : `\n${shown}`
        }`,
      ).toBe(true)
      // A warning (a scope the pair lacks, a deprecation) or an error message is something the page does not show.
      expect(outcome.stderr, `${snippet.file}:${snippet.line} wrote to stderr`).toBe('')
    },
  )
})
