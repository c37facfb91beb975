/**
 * `npm run build` takes out of the shipped JavaScript the doc comments its declarations carry word for word: only
 * those, never a comment inside a string, and the lines keep their numbers.
 */
import { describe, expect, it } from 'vitest'
import { withoutRepeatedDocComments } from '../../scripts/dev/repeated-doc-comments.js'

const JS = [
  '/** A client. */',
  'export class Client {',
  '    /**',
  '     * Sends a call.',
  '     */',
  '    call() {',
  '        // Why: the portal takes one at a time.',
  "        return '/** not a comment */'",
  '    }',
  '    /** Internal: the declarations leave it out. */',
  '    #queue = []',
  '}',
  '/** A helper no declaration names. */',
  'function helper() {}',
].join('\n')

const DTS = [
  '/** A client. */',
  'export declare class Client {',
  '    #private;',
  '    /**',
  '     * Sends a call.',
  '     */',
  '    call(): string;',
  '}',
].join('\n')

describe('the doc comments the declarations carry, taken out of the JavaScript', () => {
  const out = withoutRepeatedDocComments(JS, DTS)

  it('drops those the declarations carry (whatever the indentation) and keeps every line number', () => {
    expect(out).not.toContain('A client.')
    expect(out).not.toContain('Sends a call.')
    expect(out.split('\n').length).toBe(JS.split('\n').length)
    expect(out.split('\n').indexOf('    call() {')).toBe(JS.split('\n').indexOf('    call() {'))
  })

  it('keeps the doc comments no declaration carries, line comments, and strings', () => {
    expect(out).toContain('/** Internal: the declarations leave it out. */')
    expect(out).toContain('/** A helper no declaration names. */')
    expect(out).toContain('// Why: the portal takes one at a time.')
    expect(out).toContain("return '/** not a comment */'")
  })

  it('changes nothing where the declarations carry no doc comment', () => {
    expect(withoutRepeatedDocComments(JS, 'export {};')).toBe(JS)
  })
})
