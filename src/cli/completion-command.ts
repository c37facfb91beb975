import { parseCommandArgs } from './args.js'
import { type Command, printHelp } from './command.js'
import { ExitCode, UsageError } from './exit-codes.js'
import type { CliIo } from './io.js'
import { catalogueMethods } from './method-names.js'
import { EXIT_CODES_HELP } from './run.js'

const HELP = `Usage: portal-oauth completion bash|zsh

Prints a completion script: commands, their flags, and for 'call' every REST method of the catalogue (the portal's
REST documentation).

  bash:  eval "$(portal-oauth completion bash)"      (or save it under ~/.local/share/bash-completion/completions/)
  zsh:   eval "$(portal-oauth completion zsh)"       (after compinit)

Flags:
  -h, --help   this help

${EXIT_CODES_HELP}`

/** Flags whose value is a file name. */
const FILE_FLAGS = ['--pair', '--client-secret-file', '--out']

function bashScript(commands: readonly Command[], methods: readonly string[]): string {
  const cases = commands
    .map((command) => `    ${command.name}) flags="${command.flags.join(' ')}" ;;`)
    .join('\n')
  return `# bash completion of portal-oauth: eval "$(portal-oauth completion bash)"
_portal_oauth_methods="${methods.join(' ')}"
_portal_oauth() {
  local cur prev flags
  cur="\${COMP_WORDS[COMP_CWORD]}"
  prev="\${COMP_WORDS[COMP_CWORD-1]}"
  if [ "$COMP_CWORD" -eq 1 ]; then
    COMPREPLY=( $(compgen -W "${commands.map((command) => command.name).join(' ')} --help --version" -- "$cur") )
    return
  fi
  case "$prev" in
    ${FILE_FLAGS.join('|')}) COMPREPLY=( $(compgen -f -- "$cur") ); return ;;
    --api) COMPREPLY=( $(compgen -W "v2 v3" -- "$cur") ); return ;;
  esac
  case "\${COMP_WORDS[1]}" in
${cases}
    *) flags="" ;;
  esac
  if [[ "$cur" == -* ]]; then
    COMPREPLY=( $(compgen -W "$flags" -- "$cur") )
  elif [ "\${COMP_WORDS[1]}" = call ] && [ "$COMP_CWORD" -eq 2 ]; then
    COMPREPLY=( $(compgen -W "$_portal_oauth_methods" -- "$cur") )
  elif [ "\${COMP_WORDS[1]}" = completion ]; then
    COMPREPLY=( $(compgen -W "bash zsh" -- "$cur") )
  elif [ "\${COMP_WORDS[1]}" = fleet ] && [ "$COMP_CWORD" -eq 2 ]; then
    COMPREPLY=( $(compgen -W "status show" -- "$cur") )
  fi
}
complete -o default -F _portal_oauth portal-oauth
`
}

function zshScript(commands: readonly Command[], methods: readonly string[]): string {
  const described = commands.map((command) => `    '${command.name}:${command.summary.replace(/'/g, '')}'`)
  const cases = commands
    .map((command) => `    ${command.name}) flags=(${command.flags.join(' ')}) ;;`)
    .join('\n')
  return `#compdef portal-oauth
# zsh completion of portal-oauth: eval "$(portal-oauth completion zsh)" after compinit
_portal_oauth() {
  local -a commands flags methods
  commands=(
${described.join('\n')}
  )
  if (( CURRENT == 2 )); then
    _describe 'command' commands
    return
  fi
  case $words[CURRENT-1] in
    ${FILE_FLAGS.join('|')}) _files; return ;;
    --api) compadd v2 v3; return ;;
  esac
  case $words[2] in
${cases}
  esac
  if [[ $words[CURRENT] == -* ]]; then
    compadd -- $flags
  elif [[ $words[2] == call && CURRENT -eq 3 ]]; then
    methods=(${methods.join(' ')})
    compadd -- $methods
  elif [[ $words[2] == completion ]]; then
    compadd bash zsh
  elif [[ $words[2] == fleet && CURRENT -eq 3 ]]; then
    compadd status show
  fi
}
if (( $+functions[compdef] )); then compdef _portal_oauth portal-oauth; fi
`
}

/** `portal-oauth completion bash|zsh`; `commands` is every command of the binary. */
export function completionCommand(commands: () => readonly Command[]): Command {
  return {
    name: 'completion',
    summary: 'print a bash or zsh completion script (methods from the catalogue)',
    help: HELP,
    flags: ['--help'],
    async run(args: string[], io: CliIo): Promise<ExitCode> {
      const parsed = parseCommandArgs('completion', args, {}, 1)
      if (parsed === 'help') return printHelp({ help: HELP }, io)
      const shell = parsed.positionals[0]
      if (shell !== 'bash' && shell !== 'zsh')
        throw new UsageError(
          `completion: name the shell, bash or zsh${shell === undefined ? '' : `, got '${shell}'`}`,
        )
      const methods = await catalogueMethods()
      io.stdout.write(shell === 'bash' ? bashScript(commands(), methods) : zshScript(commands(), methods))
      return ExitCode.Ok
    },
  }
}
