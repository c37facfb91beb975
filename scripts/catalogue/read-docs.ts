import { readdirSync, readFileSync } from 'node:fs'
import { join, relative, sep } from 'node:path'
import type { DocMethod, DocParam, ParseProblem } from './doc-model.js'
import { ANSWER_ERRATA, appliedAnswerErrata, NAME_ERRATA, PROSE_METHODS } from './errata.js'
import { LINKED_FIELDS, withLinkedFields } from './linked-fields.js'
import { parsePage, readAnchoredTable } from './parse-page.js'

/** Folders of the docs repository that hold REST method pages (the SDK pages document JS functions). */
const METHOD_ROOTS = ['api-reference', 'settings', 'local-integrations']

/** Every method of a docs checkout, with the pages and rows that could not be read. */
export interface DocsReading {
  /** Methods by `version name`, one page each (the first page in path order wins a duplicate). */
  readonly methods: readonly DocMethod[]
  /** Pages and rows not read. */
  readonly problems: readonly ParseProblem[]
  /** Markdown pages looked at. */
  readonly pages: number
  /** Parameter rows read. */
  readonly rows: number
  /** Rows read that give no type (typed `unknown`). */
  readonly untypedRows: number
  /** Pages documenting a method another page already documents. */
  readonly duplicates: readonly string[]
}

/** Reads every Markdown page under the method folders of the checkout at `root`. */
export function readDocs(root: string): DocsReading {
  const files = METHOD_ROOTS.flatMap((folder) => markdownUnder(join(root, folder))).sort()
  const byKey = new Map<string, DocMethod>()
  const problems: ParseProblem[] = []
  const duplicates: string[] = []
  let rows = 0
  let untypedRows = 0
  const named = new Map<string, Set<string>>()
  for (const file of files) {
    const page = relative(root, file).split(sep).join('/')
    const text = readFileSync(file, 'utf8')
    for (const name of dottedNames(text)) named.set(name, (named.get(name) ?? new Set()).add(page))
    const result = parsePage(page, text)
    problems.push(...result.problems)
    rows += result.rows
    untypedRows += result.untypedRows
    if (result.method === null) continue
    const key = `${result.method.version} ${result.method.name}`
    if (byKey.has(key)) duplicates.push(page)
    else byKey.set(key, result.method)
  }
  for (const method of PROSE_METHODS) {
    const key = `${method.version} ${method.name}`
    if (!byKey.has(key)) byKey.set(key, method)
  }
  for (const link of LINKED_FIELDS) {
    const method = byKey.get(link.method)
    const fields = readLinkedPage(root, link.page, link.anchor)
    if (method === undefined || fields === undefined) {
      problems.push({
        page: link.page,
        reason: `linked fields of ${link.method} (#${link.anchor}) no longer apply`,
      })
      continue
    }
    byKey.set(link.method, withLinkedFields(method, link.param, fields.filter(link.sent)))
  }
  for (const erratum of NAME_ERRATA) {
    if (
      ![...byKey.values()].some(
        (method) => `${method.page}.md` === erratum.page && method.name === erratum.name,
      )
    )
      problems.push({
        page: erratum.page,
        reason: `erratum ${erratum.wrong} -> ${erratum.name} no longer applies`,
      })
  }
  for (const erratum of ANSWER_ERRATA.filter((entry) => !appliedAnswerErrata.has(entry.page)))
    problems.push({ page: erratum.page, reason: `answer erratum (${erratum.wrong}) no longer applies` })
  const methods = [...byKey.values()]
    .map((method) => withCatalogueSpelling(method, byKey))
    .map((method) => ({ ...method, citedBy: citations(method, named) }))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
  return { methods, problems, pages: files.length, rows, untypedRows, duplicates }
}

/**
 * The method with its replacement spelt as the catalogue spells it: the docs name `tasks.task.getAccess` where the
 * method's own page is `tasks.task.getaccess` (the portal ignores case), and a replacement must be callable.
 */
function withCatalogueSpelling(method: DocMethod, byKey: ReadonlyMap<string, DocMethod>): DocMethod {
  const replacement = method.deprecatedBy
  if (replacement === undefined || replacement === '') return method
  const wanted = replacement.toLowerCase()
  const same = (other: DocMethod) => other.name.toLowerCase() === wanted
  const found =
    [...byKey.values()].find((other) => other.version === method.version && same(other)) ??
    [...byKey.values()].find(same)
  return found === undefined || found.name === replacement ? method : { ...method, deprecatedBy: found.name }
}

/** The dotted names a page mentions (`crm.item.get`), lower-cased, once each. */
function dottedNames(text: string): Set<string> {
  return new Set(
    [...text.matchAll(/(?<![\w.])[a-z][\w]*(?:\.[\w]+)+(?![\w.])/gi)].map((match) => match[0].toLowerCase()),
  )
}

/** How many pages other than its own name the method. */
function citations(method: DocMethod, named: ReadonlyMap<string, ReadonlySet<string>>): number {
  const pages = named.get(method.name.toLowerCase())
  if (pages === undefined) return 0
  return pages.size - (pages.has(`${method.page}.md`) ? 1 : 0)
}

/** The rows of the `{#anchor}` table of the page at `page` of the checkout, or undefined when it is gone. */
function readLinkedPage(root: string, page: string, anchor: string): DocParam[] | undefined {
  let text: string
  try {
    text = readFileSync(join(root, page), 'utf8')
  } catch {
    return undefined
  }
  return readAnchoredTable(page, text, anchor)
}

/** Markdown files under `dir`, recursively (none when it does not exist). */
function markdownUnder(dir: string): string[] {
  let entries: string[]
  try {
    entries = readdirSync(dir, { recursive: true, encoding: 'utf8' })
  } catch {
    return []
  }
  return entries.filter((entry) => entry.endsWith('.md')).map((entry) => join(dir, entry))
}
