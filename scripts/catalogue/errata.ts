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
