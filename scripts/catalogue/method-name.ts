/** A REST method name: dotted segments (`crm.deal.add`, `imbot.v2.Bot.list`) or a bare known word (`profile`). */
const DOTTED = /^[a-z][a-zA-Z0-9_]*(\.[a-zA-Z][a-zA-Z0-9_]*)+$/

/** Whether `word` is shaped like a dotted REST method name. */
export function isDottedName(word: string): boolean {
  return DOTTED.test(word)
}

/** A name without case and separators, to compare a method with a file name. */
function squash(name: string): string {
  return name.toLowerCase().replace(/[^a-z0-9]/g, '')
}

/** Method names in the page's curl examples (`.../rest/<user>/<hook>/<method>` and `.../rest/<method>`). */
function namesInExamples(text: string): string[] {
  const names = new Set<string>()
  for (const match of text.matchAll(
    /\/rest\/(?:api\/)?(?:\*\*put_your_user_id_here\*\*\/\*\*put_your_webhook_here\*\*\/)?([A-Za-z][\w.]*)\s*$/gm,
  )) {
    const name = match[1]
    if (name && !name.startsWith('put_your')) names.add(name)
  }
  return [...names]
}

/**
 * The method a page documents: the H1's last word when it is a dotted name, else a dotted word of the H1 that the
 * curl examples call, else the H1's only dotted word, else the example call the file name spells. Null otherwise.
 */
export function methodOfPage(h1: string, text: string, page: string): string | null {
  const words = h1
    .replace(/[`:]/g, ' ')
    .split(/\s+/)
    .filter((word) => word.length > 0)
  const last = words.at(-1) ?? ''
  if (isDottedName(last)) return last
  const called = namesInExamples(text)
  const inTitle = words.find((word) => isDottedName(word) && called.includes(word))
  if (inTitle) return inTitle
  const dotted = words.filter(isDottedName)
  if (dotted.length === 1) return dotted[0] ?? null
  // The page's file name spells the method (`im-recent-pin.md`, `profile.md`): an example call must match it.
  const file = squash(page.slice(page.lastIndexOf('/') + 1).replace(/\.md$/, ''))
  return called.find((name) => squash(name) === file) ?? null
}
