/**
 * docs/cli.md runs as written: its ```sh blocks, in order, in one bash process with `portal-oauth` on the PATH (the
 * sources under tsx), each block's stdout compared with the ```text block right after it. The page's fixed ports
 * (8080, 8081, 8090 and Redis's 6379) are swapped for free ones, so that a busy port on the machine fails nothing.
 */
import { execFile } from 'node:child_process'
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  freePort,
  type RedisUnderTest,
  redisInstalled,
  redisRequired,
  startRedisServer,
} from '../redis/redis-server.js'

const exec = promisify(execFile)
const ROOT = fileURLToPath(new URL('../..', import.meta.url))
const PAGE = join(ROOT, 'docs', 'cli.md')

/** A shell block and the output the page shows after it, if any. */
interface ShellBlock {
  line: number
  code: string
  output: string | undefined
}

/** The ```sh blocks of a page, each with the ```text block that follows it with only blank lines between. */
function shellBlocks(text: string): ShellBlock[] {
  const lines = text.split('\n')
  const blocks: ShellBlock[] = []
  const fenced = (at: number, language: string): { body: string; end: number } | undefined => {
    if (lines[at] !== `\`\`\`${language}`) return undefined
    const end = lines.indexOf('```', at + 1)
    return { body: lines.slice(at + 1, end).join('\n'), end }
  }
  for (let at = 0; at < lines.length; at++) {
    const shell = fenced(at, 'sh')
    if (!shell) continue
    let next = shell.end + 1
    while (lines[next] === '') next++
    const shown = fenced(next, 'text')
    blocks.push({ line: at + 2, code: shell.body, output: shown?.body })
    at = shown ? shown.end : shell.end
  }
  return blocks
}

describe.skipIf(!redisInstalled && !redisRequired)('docs/cli.md', () => {
  let dir = ''
  let redis: RedisUnderTest
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'portal-oauth-cli-docs-'))
    redis = await startRedisServer()
  })
  afterAll(async () => {
    await redis?.stop()
    if (dir) await rm(dir, { recursive: true, force: true })
  })

  it('every shell block runs in order and prints what the page shows after it', async () => {
    const blocks = shellBlocks(await readFile(PAGE, 'utf8'))
    expect(blocks.length).toBeGreaterThan(5)
    const ports = new Map<string, string>([
      ['8080', String(await freePort())],
      ['8081', String(await freePort())],
      ['8090', String(await freePort())],
      ['6379', String(redis.nodes[0]!.port)],
    ])
    const localise = (text: string): string =>
      text.replace(/\b(8080|8081|8090|6379)\b/g, (port) => ports.get(port)!)
    const bin = join(dir, 'bin')
    await mkdir(bin)
    const tsx = createRequire(import.meta.url).resolve('tsx')
    const main = join(ROOT, 'src', 'cli', 'main.ts')
    await writeFile(
      join(bin, 'portal-oauth'),
      `#!/bin/sh\nexec '${process.execPath}' --import '${tsx}' '${main}' "$@"\n`,
    )
    await chmod(join(bin, 'portal-oauth'), 0o755)
    const work = join(dir, 'work')
    await mkdir(work)
    const script = [
      'set -euo pipefail',
      ...blocks.flatMap((block, index) => [`echo '@@block ${index}@@'`, localise(block.code)]),
      "echo '@@end@@'",
    ].join('\n')
    const env: NodeJS.ProcessEnv = { ...process.env, PATH: `${bin}:${process.env.PATH}` }
    delete env.PORTAL_OAUTH_TRUSTED_SERVERS
    const { stdout } = await exec('bash', ['-c', script], { cwd: work, env, timeout: 90_000 }).catch(
      (error: { stdout?: string; stderr?: string }) => {
        throw new Error(`the page's shell blocks failed:\n${error.stdout}\n${error.stderr}`)
      },
    )
    expect(stdout.trimEnd().endsWith('@@end@@')).toBe(true)
    const outputs = stdout.split(/^@@block \d+@@\n/m).slice(1)
    for (const [index, block] of blocks.entries()) {
      if (block.output === undefined) continue
      const printed = outputs[index]!.replace(/@@end@@\n$/, '')
      expect({ line: block.line, printed }).toEqual({
        line: block.line,
        printed: `${localise(block.output)}\n`,
      })
    }
  }, 120_000)
})
