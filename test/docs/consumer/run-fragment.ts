/** Runs one fragment (its compiled file, the first argument) with the globals of context.ts, then closes them. */
import { resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { open } from './context.js'

const close = await open()
try {
  await import(pathToFileURL(resolve(process.argv[2] ?? '')).href)
} finally {
  await close()
}
