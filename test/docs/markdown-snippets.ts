/**
 * The TypeScript blocks of the documentation: every ```ts block of README.md and of every *.md under docs/, with
 * the marker (`<!-- snippet: ... -->`) on the line before it, if any. The markers are described in docs/testing.md.
 */
import { readdir, readFile } from 'node:fs/promises'
import { join, relative } from 'node:path'

/** What a marker can say about the block after it. */
export type SnippetFlag = 'fragment' | 'no-run' | 'redis'

const FLAGS: ReadonlySet<string> = new Set<SnippetFlag>(['fragment', 'no-run', 'redis'])

/** One TypeScript block of the documentation. */
export interface Snippet {
  /** The Markdown file, relative to the repository root, with `/` separators. */
  readonly file: string
  /** 1-based line of the block's first line of code in `file`. */
  readonly line: number
  /** The block's code, its fence's indentation removed. */
  readonly code: string
  /** The flags of the marker before the block; empty for a whole program that runs. */
  readonly flags: ReadonlySet<SnippetFlag>
  /**
   * What the block prints on standard output, as the page shows it: the ```` ```text ```` block after the
   * `<!-- output -->` marker that follows it, or `undefined` when the page shows no output.
   */
  readonly output?: string | undefined
}

/** A marker that names no known flag, or a marker with no block after it: the documentation is wrong. */
export class SnippetMarkerError extends Error {}

const FENCE_OPEN = /^(\s*)(`{3,}|~{3,})\s*(ts|typescript)\s*$/
const FENCE_ANY = /^(\s*)(`{3,}|~{3,})/
const MARKER = /^\s*<!--\s*snippet:\s*(.*?)\s*-->\s*$/
const OUTPUT_MARKER = /^\s*<!--\s*output\s*-->\s*$/
const OUTPUT_FENCE = /^(\s*)(`{3,}|~{3,})\s*text\s*$/

/** README.md and every *.md under docs/ (at any depth), in a stable order. */
export async function documentationFiles(root: string): Promise<string[]> {
  const docs = (await readdir(join(root, 'docs'), { recursive: true }))
    .filter((path) => path.endsWith('.md'))
    .map((path) => join(root, 'docs', path))
    .sort()
  return [join(root, 'README.md'), ...docs]
}

/** The TypeScript blocks of one Markdown text. `file` is only used to name them. */
export function extractSnippets(file: string, text: string): Snippet[] {
  const lines = text.split(/\r?\n/)
  const snippets: Snippet[] = []
  let pendingMarker: { flags: Set<SnippetFlag>; line: number } | undefined
  /** The line of an `<!-- output -->` marker waiting for its ```text block. */
  let pendingOutput: number | undefined
  for (let index = 0; index < lines.length; index++) {
    const current = lines[index] ?? ''
    if (OUTPUT_MARKER.test(current)) {
      if (pendingMarker) throw markerWithoutBlock(file, pendingMarker.line)
      pendingOutput = index + 1
      continue
    }
    if (pendingOutput !== undefined) {
      index = readOutput(file, lines, index, pendingOutput, snippets)
      pendingOutput = undefined
      continue
    }
    const marker = MARKER.exec(current)
    if (marker) {
      pendingMarker = { flags: parseFlags(file, index + 1, marker[1] ?? ''), line: index + 1 }
      continue
    }
    const fence = FENCE_ANY.exec(current)
    if (!fence) {
      if (current.trim() !== '' && pendingMarker) throw markerWithoutBlock(file, pendingMarker.line)
      continue
    }
    const [, indent = '', ticks = ''] = fence
    const closing = lines.findIndex((line, at) => at > index && isClosingFence(line, ticks))
    const end = closing === -1 ? lines.length : closing
    if (FENCE_OPEN.test(current)) {
      const body = lines
        .slice(index + 1, end)
        .map((line) => (line.startsWith(indent) ? line.slice(indent.length) : line))
      snippets.push({
        file,
        line: index + 2,
        code: `${body.join('\n')}\n`,
        flags: pendingMarker?.flags ?? new Set(),
      })
    } else if (pendingMarker) {
      throw markerWithoutBlock(file, pendingMarker.line)
    }
    pendingMarker = undefined
    index = end
  }
  if (pendingMarker) throw markerWithoutBlock(file, pendingMarker.line)
  if (pendingOutput !== undefined) throw outputWithoutBlock(file, pendingOutput)
  return snippets
}

/**
 * Reads the ```text block at `index` (blank lines before it are skipped) as the output of the last runnable
 * snippet before it; returns the index of its closing fence.
 */
function readOutput(
  file: string,
  lines: readonly string[],
  index: number,
  markerLine: number,
  snippets: Snippet[],
): number {
  let at = index
  while (at < lines.length && (lines[at] ?? '').trim() === '') at++
  const fence = OUTPUT_FENCE.exec(lines[at] ?? '')
  if (!fence) throw outputWithoutBlock(file, markerLine)
  const [, indent = '', ticks = ''] = fence
  const closing = lines.findIndex((line, position) => position > at && isClosingFence(line, ticks))
  const end = closing === -1 ? lines.length : closing
  const last = snippets.pop()
  if (!last || last.flags.has('no-run') || last.output !== undefined) {
    throw new SnippetMarkerError(
      `${file}:${markerLine}: an output marker must follow a runnable \`\`\`ts block that has no output yet`,
    )
  }
  const body = lines
    .slice(at + 1, end)
    .map((line) => (line.startsWith(indent) ? line.slice(indent.length) : line))
  snippets.push({ ...last, output: `${body.join('\n')}\n` })
  return end
}

/**
 * Whether `actual` (a snippet's standard output) is what `expected` (its output block) shows: line by line, trailing
 * spaces and a final newline ignored. `…` within a line stands for any text of that line (a token, a time); a line
 * that is `…` alone stands for any number of lines (the rest of a long list).
 */
export function outputMatches(expected: string, actual: string): boolean {
  if (expected.trim() === '') return actual.trim() === ''
  const lines = (text: string) =>
    text
      .replace(/\s+$/, '')
      .split(/\r?\n/)
      .map((line) => line.trimEnd())
  const pattern = lines(expected)
    .map((line) =>
      line.trim() === '…' ? '(?:[^\\n]*\\n)*?' : `${line.split('…').map(escapeRegExp).join('[^\\n]*')}\\n`,
    )
    .join('')
  return new RegExp(`^${pattern}$`).test(`${lines(actual).join('\n')}\n`)
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
}

function outputWithoutBlock(file: string, line: number): SnippetMarkerError {
  return new SnippetMarkerError(`${file}:${line}: an output marker must come right before a \`\`\`text block`)
}

/** Every TypeScript block of README.md and docs/, named relative to `root`. */
export async function documentationSnippets(root: string): Promise<Snippet[]> {
  const snippets: Snippet[] = []
  for (const path of await documentationFiles(root)) {
    const name = relative(root, path).split('\\').join('/')
    snippets.push(...extractSnippets(name, await readFile(path, 'utf8')))
  }
  return snippets
}

function parseFlags(file: string, line: number, text: string): Set<SnippetFlag> {
  const flags = new Set<SnippetFlag>()
  // Words after the flags, separated by `:` or `--`, are the reason; they are for the reader.
  const [list = ''] = text.split(/\s*(?::|--)\s*/, 1)
  for (const word of list.split(/[\s,]+/).filter(Boolean)) {
    if (!FLAGS.has(word)) {
      throw new SnippetMarkerError(
        `${file}:${line}: unknown snippet flag "${word}" (known: ${[...FLAGS].join(', ')})`,
      )
    }
    flags.add(word as SnippetFlag)
  }
  return flags
}

/** A line that closes a block opened by `ticks`: the same character, at least as many, nothing else. */
function isClosingFence(line: string, ticks: string): boolean {
  const trimmed = line.trim()
  return trimmed.length >= ticks.length && trimmed === (ticks[0] ?? '`').repeat(trimmed.length)
}

function markerWithoutBlock(file: string, line: number): SnippetMarkerError {
  return new SnippetMarkerError(`${file}:${line}: a snippet marker must come right before a \`\`\`ts block`)
}
