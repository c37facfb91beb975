import { writesData } from './access.js'
import type { DocMethod, DocParam, EntityFields, ParseProblem } from './doc-model.js'
import { correctedAnswer, correctedJson, correctedName } from './errata.js'
import { isDottedName, methodOfPage } from './method-name.js'
import { type DocError, readNotFound } from './not-found-answer.js'
import { addValue, exampleResult, type Shape } from './result-shape.js'
import { blankCode, readTables, type YfmTable } from './yfm-tables.js'

/** What one page gave: its method (if it documents one) and the rows or pages it could not read. */
export interface PageResult {
  /** The documented method, or null for a page that documents none. */
  readonly method: DocMethod | null
  /** Rows of its parameter tables that could not be read, and why. */
  readonly problems: readonly ParseProblem[]
  /** Parameter rows read (top level and nested). */
  readonly rows: number
  /** Rows read that name a parameter but give no type. */
  readonly untypedRows: number
}

/** Nesting depth followed through `{#anchor}` tables (a table that links back stops there). */
const MAX_DEPTH = 4

/** Reads one docs page (`page`: path inside the repository, `text`: its Markdown). */
export function parsePage(page: string, text: string): PageResult {
  const none: PageResult = { method: null, problems: [], rows: 0, untypedRows: 0 }
  const h1 = /^# (.+)$/m.exec(text)?.[1]?.trim()
  // A method page says who may call the method and, on most pages, its scope (the `event.*` pages say none).
  const scopeLine = /^> Scope:(.*)$/m.exec(text)?.[1]
  const whoLine = /^> Who can execute the method/m.test(text)
  if (h1 === undefined || (scopeLine === undefined && !whoLine)) return none
  const titled = methodOfPage(h1, text, page)
  const name = titled === null ? null : correctedName(page, titled)
  if (name === null) {
    // Event pages and the JS SDK's BX24.* pages have parameter tables too, but document no REST method.
    const notMethod = /\/events\//.test(page) || /\bBX24\./.test(h1)
    const hasTable = !notMethod && /^## (Method )?Parameters/im.test(text)
    return hasTable ? { ...none, problems: [{ page, reason: `no method name in "${h1}"` }] } : none
  }
  const body = blankCode(text)
  const problems: ParseProblem[] = []
  const counter: RowCounter = { rows: 0, untyped: 0 }
  const read = readParams(page, body, problems, counter)
  const oneOf = read === null ? [] : eitherOrGroups(body, read)
  const params = oneOf.length === 0 || read === null ? read : withoutGroupRequirement(read, oneOf)
  const entityFields = read?.some((param) => param.name === 'fields' && param.nested === undefined)
    ? readEntityTabs(page, body, problems, counter)
    : []
  return {
    method: {
      name,
      version: isRestV3(page, text) ? 'v3' : 'v2',
      scopes: [...(scopeLine ?? '').matchAll(/`([^`]+)`/g)]
        .map((match) => match[1] ?? '')
        .filter(isScopeWord),
      deprecatedBy: deprecation(text) ?? (/\/outdated\//.test(page) ? '' : undefined),
      writes: writesData(name),
      params,
      ...(oneOf.length > 0 ? { oneOf } : {}),
      ...(entityFields.length > 0 ? { entityFields } : {}),
      ...readResult(page, text, body),
      ...notFoundOf(text),
      page: page.replace(/\.md$/, ''),
      title: h1
        .replace(titled ?? name, '')
        .replace(/[`:]/g, '')
        .replace(/\s+/g, ' ')
        .trim(),
    },
    problems,
    rows: counter.rows,
    untypedRows: counter.untyped,
  }
}

/**
 * The groups of top-level parameters the page says at least one of must be given ("At least one of the parameters
 * must be specified: `IBLOCK_ID` or `IBLOCK_CODE`") and its table marks required, each named once; groups naming
 * anything else (fields of an object, access codes) are left out.
 */
function eitherOrGroups(body: string, params: readonly DocParam[]): string[][] {
  const names = new Set(params.map((param) => param.name))
  const required = new Set(params.filter((param) => param.required).map((param) => param.name))
  const groups = new Map<string, string[]>()
  for (const match of body.matchAll(
    /at least one of (?:the )?(?:following )?(?:parameters|fields)[^.\n]*?((?:`?\w+`?(?:,\s*|,?\s+or\s+))+`?\w+`?)/gi,
  )) {
    const group = [...(match[1] ?? '').matchAll(/`?(\w+)`?/g)]
      .map((word) => word[1] ?? '')
      .filter((word) => word !== 'or')
    // Only where the table marks them required: "To retrieve element data, at least one of ..." of two optional
    // parameters is no requirement of the call.
    const stated = group.length > 1 && group.every((name) => names.has(name))
    if (stated && group.some((name) => required.has(name))) groups.set(group.join(','), group)
  }
  return [...groups.values()]
}

/** The parameters with those of the groups no longer required one by one (the group is: see DocMethod.oneOf). */
function withoutGroupRequirement(params: readonly DocParam[], groups: readonly string[][]): DocParam[] {
  const grouped = new Set(groups.flat())
  return params.map((param) => (grouped.has(param.name) ? { ...param, required: false } : param))
}

/** A v3 page: a `*-rest-v3.md` twin of a v2 page, or a page whose note says the method belongs to REST 3.0. */
function isRestV3(page: string, text: string): boolean {
  return /-rest-v3\.md$/.test(page) || /\bmethod belongs to REST 3\.0\b/i.test(text)
}

/** Rows read so far on a page, and how many of them had no type. */
interface RowCounter {
  rows: number
  untyped: number
}

/** Scope words are identifiers; the docs sometimes add prose (`depending on the placement`). */
function isScopeWord(word: string): boolean {
  return /^[a-z][a-z0-9_.]*$/.test(word)
}

/**
 * The replacement a deprecation note ("DEPRECATED", "Deprecated method") names ('' when it names none), or undefined
 * without such a note. (A page filed under `outdated/` is deprecated without a note too: see parsePage.)
 */
function deprecation(text: string): string | undefined {
  const note = /\{% note [a-z]+ "(?:DEPRECATED|Deprecated method)" %\}([\s\S]*?)\{% endnote %\}/i.exec(
    text,
  )?.[1]
  if (note === undefined) return undefined
  for (const link of note.matchAll(/\[`?([^\]`]+)`?\]\(/g)) {
    const target = (link[1] ?? '').trim()
    if (isDottedName(target.replace(/\.\*$/, '')) || /^[a-z]+\.[\w.]*\*$/.test(target)) return target
  }
  return ''
}

/**
 * The parameters: the first table of the `## Method Parameters` section (or, without that heading, a `Name` table
 * before the first `##` heading), or its first table of typed parameters without a header row. An empty list when
 * the page says the method takes no parameters.
 */
function readParams(
  page: string,
  body: string,
  problems: ParseProblem[],
  counter: RowCounter,
): DocParam[] | null {
  const heading = PARAMS_HEADING.exec(body)
  const section = sectionAt(body, heading ? heading.index : (/^> Scope:/m.exec(body)?.index ?? 0))
  const tables = readTables(section)
  const table = tables.find((candidate) => candidate.hasHeader) ?? tables.find(isHeaderlessParamTable)
  if (table === undefined) {
    if (
      /no parameters|without parameters|does not (take|accept|require) (any )?parameters|has no parameters/i.test(
        section,
      )
    )
      return []
    if (heading) problems.push({ page, reason: 'a parameters section without a Name table' })
    return null
  }
  const anchors = anchoredTables(body)
  return readRows(page, table, anchors, problems, counter, 0, new Set())
}

/** The heading of a page's parameters section. */
const PARAMS_HEADING = /^## +(Method )?Parameters\b.*$/im

/** The text of `body` from `start` to the next `##` heading. */
function sectionAt(body: string, start: number): string {
  const next = body.slice(start + 3).search(/^## /m)
  return body.slice(start, next < 0 ? body.length : start + 3 + next)
}

/**
 * The fields of `fields` per CRM object type, where the parameters section lists them in tabs, one per type, each
 * saying "CRM object identifier **entityTypeId:** `2`" above its table (`crm.item.add`, `crm.item.update`).
 */
function readEntityTabs(
  page: string,
  body: string,
  problems: ParseProblem[],
  counter: RowCounter,
): EntityFields[] {
  const heading = PARAMS_HEADING.exec(body)
  const section = heading === null ? '' : sectionAt(body, heading.index)
  const tabs = /\{% list tabs %\}([\s\S]*?)\{% endlist %\}/.exec(section)?.[1] ?? ''
  if (!/\*\*entityTypeId:\*\*/.test(tabs)) return []
  const anchors = anchoredTables(body)
  return tabs.split(/^- (?=\S)/m).flatMap((tab) => {
    const title = /^.*/.exec(tab)?.[0]?.trim() ?? ''
    const table = readTables(tab).find((candidate) => candidate.hasHeader)
    if (title === '' || table === undefined) return []
    const fields = readRows(page, table, anchors, problems, counter, 1, new Set())
    const id = /\*\*entityTypeId:\*\*\s*`(\d+)`/.exec(tab)?.[1]
    return [id === undefined ? { title, fields } : { title, entityTypeId: Number(id), fields }]
  })
}

/**
 * A table without its `Name` header row whose every row is a typed parameter (`**TASKID***` `integer`:
 * task.elapseditem.isActionAllowed).
 */
function isHeaderlessParamTable(table: YfmTable): boolean {
  return (
    table.rows.length > 0 && table.rows.every((cells) => (readRow(cells[0] ?? '', '')?.docType ?? '') !== '')
  )
}

/** Headings of the section that shows a method's answer. */
const ANSWER_HEADING = /^## +(Response Handling|Returned Data|Response on Success|Successful Response)\b.*$/im

/**
 * What the method returns: the shape of `result` in the first example answer of the answer section (`text`, code
 * blocks kept), else the type of the `result` row of its table (`body`, code blanked).
 */
function readResult(
  page: string,
  text: string,
  body: string,
): { result?: { shape: Shape; example: unknown } | { docType: string } } {
  const heading = ANSWER_HEADING.exec(body)
  if (heading === null) return {}
  const start = heading.index + heading[0].length
  const next = body.slice(start).search(/^## /m)
  const end = next < 0 ? text.length : start + next
  const example = exampleResult(text.slice(start, end), {
    json: (json) => correctedJson(page, json),
    answer: (answer) => correctedAnswer(page, answer),
  })?.result
  if (example !== undefined && example !== null) {
    return { result: { shape: addValue({ primitives: new Set(), objects: 0 }, example), example } }
  }
  for (const table of readTables(body.slice(start, end))) {
    for (const cells of table.rows) {
      const row = readRow(cells[0] ?? '', '')
      if (row?.name === 'result' && row.docType !== '') return { result: { docType: row.docType } }
    }
  }
  return {}
}

/** The not-found error the page documents, if any. */
function notFoundOf(text: string): { notFound?: DocError } {
  const notFound = readNotFound(text)
  return notFound === undefined ? {} : { notFound }
}

/** The rows of the table under the `{#anchor}` heading of a page (`text`), or undefined when it has none. */
export function readAnchoredTable(page: string, text: string, anchor: string): DocParam[] | undefined {
  const body = blankCode(text)
  const anchors = anchoredTables(body)
  const table = anchors.get(anchor)
  if (table === undefined) return undefined
  return readRows(page, table, anchors, [], { rows: 0, untyped: 0 }, 1, new Set([anchor]))
}

/** Tables under headings with an `{#anchor}`, by anchor. */
function anchoredTables(body: string): Map<string, YfmTable> {
  const tables = new Map<string, YfmTable>()
  for (const match of body.matchAll(/^#{2,4} .*\{#([\w-]+)\}\s*$/gm)) {
    const from = (match.index ?? 0) + match[0].length
    const rest = body.slice(from)
    const stop = rest.search(/^#{2,4} /m)
    const table = readTables(stop < 0 ? rest : rest.slice(0, stop)).find((candidate) => candidate.hasHeader)
    if (table && match[1]) tables.set(match[1], table)
  }
  return tables
}

/** Reads the rows of a parameter table, following object rows into their anchored field tables. */
function readRows(
  page: string,
  table: YfmTable,
  anchors: Map<string, YfmTable>,
  problems: ParseProblem[],
  counter: RowCounter,
  depth: number,
  seen: Set<string>,
): DocParam[] {
  const params: DocParam[] = []
  for (const cells of table.rows) {
    const first = cells[0] ?? ''
    const param = readRow(first, cells.slice(1).join(' | '))
    if (param === null) {
      problems.push({ page, reason: `row not read: ${first.replace(/\s+/g, ' ').slice(0, 80)}` })
      continue
    }
    counter.rows++
    if (param.docType === '') counter.untyped++
    const anchor = nestedAnchor(cells.join(' | '))
    const nestedTable = anchor === undefined || seen.has(anchor) ? undefined : anchors.get(anchor)
    if (nestedTable && depth < MAX_DEPTH && /object|array|\[\]/.test(param.docType)) {
      const nested = readRows(
        page,
        nestedTable,
        anchors,
        problems,
        counter,
        depth + 1,
        new Set([...seen, anchor ?? '']),
      )
      params.push(nested.length > 0 ? { ...param, nested } : param)
    } else {
      params.push(param)
    }
  }
  return params
}

/** The `#anchor` a row links to for its fields (the type link first, else a link in the description). */
function nestedAnchor(row: string): string | undefined {
  return /\]\(#([\w-]+)\)/.exec(row)?.[1]
}

/** One row's name cell (`**name***`, `**name**^*^`, `**name^*^**`, then the type) and description. */
function readRow(nameCell: string, description: string): DocParam | null {
  const bold = /^\*\*(.+?)\*\*(\^?\*\^?)?/.exec(nameCell) ?? /^`([^`]+)`(\^?\*\^?)?/.exec(nameCell)
  if (bold === null) return null
  let name = (bold[1] ?? '').replace(/\\_/g, '_').replace(/`/g, '').trim()
  let required = bold[2] !== undefined
  if (/\^\*\^$|\*$/.test(name)) {
    required = true
    name = name.replace(/\^\*\^$|\*$/, '').trim()
  }
  const afterName = nameCell.slice(bold[0].length)
  // A row without a type (older pages) still names the parameter; its type stays unknown.
  // A union is written as one link of several types: [`string` \| `object`](...).
  const union = /\[(`[^`]+`(?:\s*\\?\|\s*`[^`]+`)+)\]/.exec(afterName)?.[1]
  const docType = (
    union === undefined
      ? (/\[`([^`]+)`\]/.exec(afterName)?.[1] ?? /`([^`]+)`/.exec(afterName)?.[1] ?? '')
      : [...union.matchAll(/`([^`]+)`/g)].map((match) => match[1]).join(' | ')
  ).trim()
  if (name === '' || /\s{2,}|^[A-Z][a-z]+ [a-z]/.test(name)) return null
  const flags = [...new Set([...description.matchAll(/`([A-Z])`/g)].map((match) => match[1] ?? ''))]
  const isFlag = docType === 'char' && flags.length > 0 && flags.every((flag) => flag === 'Y' || flag === 'N')
  const param: DocParam = isFlag
    ? { name, docType, required, flagValues: flags.sort().reverse() }
    : { name, docType, required }
  const summary = summaryOf(description)
  const described = summary === '' ? param : { ...param, summary }
  return /you can (also )?specify any parameters/i.test(description)
    ? { ...described, otherKeys: true }
    : described
}

/** Longest summary kept: a doc comment an editor shows beside a completion, not the page. */
const MAX_SUMMARY = 100

/** The first sentence of a description cell, without Markdown, cut at {@link MAX_SUMMARY} characters. */
function summaryOf(description: string): string {
  const text = description
    .replace(/\{%[\s\S]*?%\}/g, ' ')
    .replace(/#\|[\s\S]*?\|#/g, ' ')
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/[`*]/g, '')
    .replace(/\s+/g, ' ')
    .trim()
  const sentence = /^.*?[.!?](?=\s|$)/.exec(text)?.[0] ?? text
  const short = sentence.length > MAX_SUMMARY ? `${sentence.slice(0, MAX_SUMMARY - 1).trimEnd()}…` : sentence
  return short.replace(/\*\//g, '*\u2215')
}
