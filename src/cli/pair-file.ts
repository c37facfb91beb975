import { randomBytes } from 'node:crypto'
import { readFile, rename, rm, writeFile } from 'node:fs/promises'
import { basename, dirname, join } from 'node:path'
import type { PortalOAuthParams } from '../types/auth.js'
import { validateAuthParams } from '../validation/auth-params.js'
import { CommandFailure } from './exit-codes.js'

/**
 * Reads a token pair file (a `PortalOAuthParams` as JSON); a bad one fails naming the file and the field:
 * `--pair tokens.json: accessToken must be a non-empty string; it is missing`.
 */
export async function readPairFile(path: string): Promise<PortalOAuthParams> {
  let text: string
  try {
    text = await readFile(path, 'utf8')
  } catch (error) {
    throw new CommandFailure(
      `--pair ${path}: cannot read it (${(error as NodeJS.ErrnoException).code ?? 'error'})`,
    )
  }
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    throw new CommandFailure(`--pair ${path}: the file is not JSON (a PortalOAuthParams object is expected)`)
  }
  try {
    return validateAuthParams(value)
  } catch (error) {
    const message = (error as Error).message.replace(/^PortalOAuth: authOptions\.?/, '')
    throw new CommandFailure(`--pair ${path}: ${message === '' ? 'the pair' : message}`)
  }
}

/**
 * Writes `pair` to `path` so that a reader sees the old file or the new one, never half of one: a file beside it
 * (readable by its owner only), then a rename over it.
 */
export async function writePairFile(path: string, pair: PortalOAuthParams): Promise<void> {
  const temporary = join(dirname(path), `.${basename(path)}.${randomBytes(6).toString('hex')}.tmp`)
  try {
    await writeFile(temporary, `${JSON.stringify(pair, null, 2)}\n`, { mode: 0o600, flag: 'wx' })
    await rename(temporary, path)
  } catch (error) {
    await rm(temporary, { force: true })
    throw error
  }
}
