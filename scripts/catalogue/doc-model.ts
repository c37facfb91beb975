import type { DocError } from './not-found-answer.js'
import type { Shape } from './result-shape.js'

/** A parameter as the docs describe it. */
export interface DocParam {
  /** Parameter name as sent. */
  readonly name: string
  /** The documented type, as written (`string`, `integer[]`, `crm_status`, ...). */
  readonly docType: string
  /** Marked with a trailing `*` (or `^*^`). */
  readonly required: boolean
  /** The first sentence of its description, as plain text (for the doc comment an editor shows). */
  readonly summary?: string
  /** Values the description lists for a `char` flag (`Y`, `N`), when it lists only those. */
  readonly flagValues?: readonly string[]
  /** The description says the level takes other keys too (`user.get`: any `user.add` field filters). */
  readonly otherKeys?: boolean
  /** The fields of an object (or of each item of an object array) from the page's `{#anchor}` table. */
  readonly nested?: readonly DocParam[]
}

/** The fields of a `fields` parameter for one CRM object type, from its tab on the page. */
export interface EntityFields {
  /** The tab's title (`Deal`, `SPA`). */
  readonly title: string
  /** The type's `entityTypeId`, undefined where the tab gives none (SPAs: each has its own). */
  readonly entityTypeId?: number
  /** The fields the tab's table lists. */
  readonly fields: readonly DocParam[]
}

/** One method page of the docs. */
export interface DocMethod {
  /** REST method name, for example `crm.deal.add`. */
  readonly name: string
  /** REST API version: v3 for `*-rest-v3.md` pages and pages noting that the method belongs to REST 3.0. */
  readonly version: 'v2' | 'v3'
  /** Scopes from the `> Scope:` line. */
  readonly scopes: readonly string[]
  /** Replacement named by the DEPRECATED note ('' when the note names none); undefined when not deprecated. */
  readonly deprecatedBy?: string
  /** Whether the method changes data (from the verb at the end of its name). */
  readonly writes: boolean
  /** Parameters; an empty list for a page that says the method takes none; null when the page has no table. */
  readonly params: readonly DocParam[] | null
  /**
   * Groups of parameters of which at least one must be given ("At least one of the parameters must be specified:
   * `IBLOCK_ID` or `IBLOCK_CODE`"); the parameters of a group are not required one by one.
   */
  readonly oneOf?: readonly (readonly string[])[]
  /**
   * The fields of its `fields` parameter per CRM object type, where the page lists them in one tab per type
   * (`crm.item.add`, `crm.item.update`).
   */
  readonly entityFields?: readonly EntityFields[]
  /**
   * What the method returns: the shape of `result` in the page's example answer (and that `result` itself, after
   * the errata), else the documented type of the `result` row of its Returned Data table; undefined when the page
   * shows neither.
   */
  readonly result?: { readonly shape: Shape; readonly example: unknown } | { readonly docType: string }
  /**
   * How many other pages of the docs name the method (read-docs.ts): how much the docs send readers to it, the
   * measure of which methods are used most.
   */
  readonly citedBy?: number
  /** The error its page shows for an id that does not exist (see not-found-answer.ts). */
  readonly notFound?: DocError
  /** Page path inside the docs repository, without `.md`. */
  readonly page: string
  /** The H1 title without the method name. */
  readonly title: string
}

/** Something the generator could not read. */
export interface ParseProblem {
  /** Page path inside the docs repository. */
  readonly page: string
  /** What could not be read. */
  readonly reason: string
}
