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
}

/** A marker that names no known flag, or a marker with no block after it: the documentation is wrong. */
export class SnippetMarkerError extends Error {}

const FENCE_OPEN = /^(\s*)(`{3,}|~{3,})\s*(ts|typescript)\s*$/
const FENCE_ANY = /^(\s*)(`{3,}|~{3,})/
const MARKER = /^\s*<!--\s*snippet:\s*(.*?)\s*-->\s*$/

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
  for (let index = 0; index < lines.length; index++) {
    const current = lines[index] ?? ''
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
  return snippets
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
