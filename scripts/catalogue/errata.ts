import type { DocMethod } from './doc-model.js'

/**
 * Method names the docs' titles misspell, each with the page it corrects: the page's curl examples call the real
 * name. Each entry must still apply (the generator reports one whose page no longer gives the wrong name).
 */
export const NAME_ERRATA: readonly {
  readonly page: string
  readonly wrong: string
  readonly name: string
}[] = [
  {
    page: 'api-reference/crm/automation/triggers/crm-automation-trigger-delete.md',
    wrong: 'ctrigger.delete',
    name: 'crm.automation.trigger.delete',
  },
  {
    page: 'api-reference/departments/department-delete.md',
    wrong: 'department.department.delete',
    name: 'department.delete',
  },
  // The title names the list the chat is pinned in ("Pin a Chat at the Top of the im.recent List").
  {
    page: 'api-reference/chats/special-operations/im-recent-pin.md',
    wrong: 'im.recent',
    name: 'im.recent.pin',
  },
  {
    page: 'api-reference/departments/employee/humanresources-employee-search.md',
    wrong: 'humanresourses.employee.search',
    name: 'humanresources.employee.search',
  },
]

/** The real name of the method a page's title names `name`, after {@link NAME_ERRATA}. */
export function correctedName(page: string, name: string): string {
  return NAME_ERRATA.find((erratum) => erratum.page === page && erratum.wrong === name)?.name ?? name
}

/**
 * Methods the docs describe only in the prose of another page (no page of their own, so no table): each with the
 * page that describes it. Their parameters are not documented as a table (`params: null`) unless the prose says
 * there are none.
 */
export const PROSE_METHODS: readonly DocMethod[] = [
  {
    name: 'event.test',
    version: 'v2',
    scopes: [],
    writes: true,
    params: null,
    page: 'api-reference/events/test-handler',
    title: 'Sends the ONAPPTEST event to the handlers registered for it',
  },
  {
    name: 'landing.repo.bind',
    version: 'v2',
    scopes: ['landing'],
    writes: true,
    params: null,
    page: 'api-reference/landing/embedding/index',
    title: 'Registers an embedding location (internal method)',
  },
  {
    name: 'rest.documentation.openapi',
    version: 'v3',
    scopes: [],
    writes: false,
    params: [],
    page: 'api-reference/rest-v3',
    title: 'The OpenAPI description of the REST 3.0 methods',
  },
  {
    name: 'rest.scope.list',
    version: 'v3',
    scopes: [],
    writes: false,
    params: [],
    page: 'api-reference/rest-v3',
    title: 'The scope of every REST method, by module',
  },
]

/** The parsed answer wrapped as every answer is, `{ result, ... }`, when the example left `result` out. */
function wrapInResult(answer: unknown, key?: string): unknown {
  if (answer === null || typeof answer !== 'object' || 'result' in answer) return undefined
  if (key === undefined) return Array.isArray(answer) ? { result: answer } : undefined
  if (!(key in answer)) return undefined
  const { [key]: rows, ...rest } = answer as Record<string, unknown>
  return { ...rest, result: { [key]: rows } }
}

/**
 * Example answers the docs get wrong, each with the page it corrects and what is wrong: the generator reads result
 * types and the emulator's seed objects from the examples, so a mistake there would be typed and served. `text`
 * corrects the JSON text of an example block, `answer` the parsed answer; each answers undefined when the page no
 * longer shows the mistake, and the generator reports an entry that applied to nothing.
 */
export const ANSWER_ERRATA: readonly {
  readonly page: string
  readonly wrong: string
  readonly text?: (json: string) => string | undefined
  readonly answer?: (answer: unknown) => unknown
}[] = [
  {
    page: 'api-reference/crm/leads/crm-lead-list.md',
    wrong: 'a line of prose inside the JSON ("48 more leads with similar structure")',
    text: (json) => {
      const fixed = json.replace(/^\s*\d+ more leads with similar structure\s*$/m, '')
      return fixed === json ? undefined : fixed
    },
  },
  // Their own Returned Data tables say `result` holds the list; the examples show what is inside it.
  ...[
    ['api-reference/catalog/price-type/catalog-price-type-list.md', 'priceTypes'],
    ['api-reference/catalog/section/catalog-section-list.md', 'sections'],
    ['api-reference/sale/person-type/sale-person-type-list.md', 'personTypes'],
    ['api-reference/sonet-group/scrum/epic/tasks-api-scrum-epic-list.md', undefined],
    ['api-reference/sonet-group/scrum/sprint/tasks-api-scrum-sprint-list.md', undefined],
  ].map(([page = '', key]) => ({
    page,
    wrong: `the answer without its \`result\`${key === undefined ? '' : ` around \`${key}\``}`,
    answer: (answer: unknown) => wrapInResult(answer, key),
  })),
]

/** Pages whose erratum applied in this run (read-docs.ts reports the others). */
export const appliedAnswerErrata = new Set<string>()

/** The JSON text of an example block of `page` after {@link ANSWER_ERRATA}. */
export function correctedJson(page: string, json: string): string {
  const fixed = ANSWER_ERRATA.find((entry) => entry.page === page)?.text?.(json)
  if (fixed === undefined) return json
  appliedAnswerErrata.add(page)
  return fixed
}

/** A parsed example answer of `page` after {@link ANSWER_ERRATA}. */
export function correctedAnswer(page: string, answer: unknown): unknown {
  const fixed = ANSWER_ERRATA.find((entry) => entry.page === page)?.answer?.(answer)
  if (fixed === undefined) return answer
  appliedAnswerErrata.add(page)
  return fixed
}
