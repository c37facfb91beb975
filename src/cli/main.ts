#!/usr/bin/env node
/**
 * The `portal-oauth` command line: `portal-oauth --help` lists the commands; docs/cli.md describes each.
 * @module
 */
import { COMMANDS } from './commands.js'
import { processIo } from './io.js'
import { runCli } from './run.js'

const stop = new AbortController()
const onSignal = (): void => stop.abort()
process.once('SIGINT', onSignal)
process.once('SIGTERM', onSignal)

// No top-level await: the package's files stay loadable with require().
void runCli(process.argv.slice(2), COMMANDS, processIo(stop.signal)).then((code) => {
  process.exitCode = code
  process.off('SIGINT', onSignal)
  process.off('SIGTERM', onSignal)
  // A command stopped by a signal may leave a request in flight, whose socket would keep the process up.
  if (stop.signal.aborted) process.exit(code)
  // Otherwise the command closed what it opened; whatever a library left open gets a few seconds.
  setTimeout(() => process.exit(code), 5_000).unref()
})
