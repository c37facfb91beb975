/** The reading of the documentation's blocks: output blocks and how a printed text is matched against them. */
import { describe, expect, it } from 'vitest'
import { extractSnippets, outputMatches, SnippetMarkerError } from './markdown-snippets.js'

const fence = '```'

describe('extractSnippets', () => {
  it('gives a block the ```text block after its output marker as its output', () => {
    const text = [
      `${fence}ts`,
      'console.log(1)',
      fence,
      '',
      'It prints:',
      '',
      '<!-- output -->',
      `${fence}text`,
      '1',
      fence,
    ].join('\n')
    const [snippet, ...rest] = extractSnippets('x.md', text)
    expect(rest).toEqual([])
    expect(snippet?.output).toBe('1\n')
  })

  it('refuses an output marker without a text block, or after a block that does not run', () => {
    expect(() => extractSnippets('x.md', `${fence}ts\nf()\n${fence}\n<!-- output -->\nprose\n`)).toThrow(
      SnippetMarkerError,
    )
    expect(() =>
      extractSnippets(
        'x.md',
        `<!-- snippet: no-run: port -->\n${fence}ts\nf()\n${fence}\n<!-- output -->\n${fence}text\n1\n${fence}\n`,
      ),
    ).toThrow(/runnable/)
  })
})

describe('outputMatches', () => {
  it('matches line by line, … standing for the rest of a line or for whole lines', () => {
    expect(outputMatches('', '')).toBe(true)
    expect(outputMatches('', 'printed\n')).toBe(false)
    expect(outputMatches('a 1\n', 'a 1')).toBe(true)
    expect(outputMatches('a 1\n', 'a 2\n')).toBe(false)
    expect(outputMatches('token …\n', 'token abc123\n')).toBe(true)
    expect(outputMatches('token …\n', 'token a\nmore\n')).toBe(false)
    expect(outputMatches('[\n  1,\n…\n]\n', '[\n  1,\n  2,\n  3\n]\n')).toBe(true)
    expect(outputMatches('[\n  1,\n…\n]\n', '[\n  2,\n  3\n]\n')).toBe(false)
    // Regular-expression characters of the page are literal.
    expect(outputMatches('f(a.b)\n', 'f(aXb)\n')).toBe(false)
  })
})
