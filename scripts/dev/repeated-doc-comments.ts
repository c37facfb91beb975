import ts from 'typescript5'

/** A comment without its indentation, as the JavaScript and the declarations indent it differently. */
const unindented = (comment: string): string => comment.replace(/^[ \t]+/gm, '')

/** The doc comments (`/** ... *\/`) of a JavaScript text, found through its syntax tree (never inside a string). */
function docComments(text: string): ts.CommentRange[] {
  const source = ts.createSourceFile('file.js', text, ts.ScriptTarget.Latest, false, ts.ScriptKind.JS)
  const found = new Map<number, ts.CommentRange>()
  const visit = (node: ts.Node): void => {
    for (const range of ts.getLeadingCommentRanges(text, node.pos) ?? []) {
      if (text.startsWith('/**', range.pos) && !text.startsWith('/**/', range.pos))
        found.set(range.pos, range)
    }
    ts.forEachChild(node, visit)
  }
  visit(source)
  return [...found.values()].sort((a, b) => a.pos - b.pos)
}

/**
 * The JavaScript `text` without the doc comments its `declarations` carry word for word, each replaced by its line
 * breaks (the lines keep their numbers); every other comment stays.
 */
export function withoutRepeatedDocComments(text: string, declarations: string): string {
  const carried = unindented(declarations)
  let out = ''
  let at = 0
  for (const range of docComments(text)) {
    const comment = text.slice(range.pos, range.end)
    if (!carried.includes(unindented(comment))) continue
    out += text.slice(at, range.pos) + '\n'.repeat(comment.split('\n').length - 1)
    at = range.end
  }
  return out + text.slice(at)
}
