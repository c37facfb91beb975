import type { DocMethod, DocParam } from './doc-model.js'

/**
 * Object parameters whose page lists only some of the fields and links to another page for the rest ("Description
 * of all task fields"): where that table is, and which of its rows a call sends. Each entry must still apply (the
 * generator reports one whose page or table is gone).
 */
export const LINKED_FIELDS: readonly {
  /** `version name` of the method. */
  readonly method: string
  /** The object parameter. */
  readonly param: string
  /** The page that lists the fields, and the `{#anchor}` of its table. */
  readonly page: string
  readonly anchor: string
  /** Whether a row is one the call sends. */
  readonly sent: (row: DocParam) => boolean
}[] = [
  ...['v3 tasks.task.add', 'v3 tasks.task.update'].map((method) => ({
    method,
    param: 'fields',
    page: 'api-reference/tasks/fields-rest-v3.md',
    anchor: 'taskdto',
    // fields-rest-v3.md: "Use the identifier field in the methods for creating and updating a task. Use the object
    // field in the method for getting a task.": the object fields (creator, group) are left out.
    sent: (row: DocParam) => !/object/.test(row.docType),
  })),
]

/**
 * The method with the linked fields of its object parameter added after those its own page lists (which keep their
 * requirement and description): `fields` of `tasks.task.add` completes every task field a call sends.
 */
export function withLinkedFields(method: DocMethod, param: string, linked: readonly DocParam[]): DocMethod {
  if (method.params === null) return method
  return {
    ...method,
    params: method.params.map((own) => {
      if (own.name !== param) return own
      const listed = own.nested ?? []
      const names = new Set(listed.map((field) => field.name))
      const added = linked
        .filter((field) => !names.has(field.name))
        .map((field) => ({ ...field, required: false }))
      return { ...own, nested: [...listed, ...added] }
    }),
  }
}
