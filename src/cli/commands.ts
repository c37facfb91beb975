import type { Command } from './command.js'
import { emulatorCommand } from './emulator-command.js'

/** Every command of `portal-oauth`, in the order `--help` lists them. */
export const COMMANDS: readonly Command[] = [emulatorCommand]
