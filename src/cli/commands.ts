import { callCommand } from './call-command.js'
import type { Command } from './command.js'
import { completionCommand } from './completion-command.js'
import { emulatorCommand } from './emulator-command.js'
import { fleetCommand } from './fleet-command.js'
import { typesCommand } from './types-command.js'

/** Every command of `portal-oauth`, in the order `--help` lists them. */
export const COMMANDS: readonly Command[] = [
  emulatorCommand,
  callCommand,
  fleetCommand,
  typesCommand,
  completionCommand(() => COMMANDS),
]
