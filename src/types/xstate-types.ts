// The main entry's declarations do not import XState: its declarations fail a consumer's check under
// `exactOptionalPropertyTypes` without `skipLibCheck`, and most consumers never use XState themselves. Where the
// public types touch XState (the actors, inspection events), they read this interface, which `portal-oauth/machines`
// (an entry that loads XState anyway) fills in with XState's own types by augmenting it.

/**
 * Filled in by `portal-oauth/machines` with XState's types: `auth.tokenActor` and `auth.adminActor` become XState's
 * `Actor`s (to hand to `waitFor`, say) and `inspect` receives XState's `InspectionEvent`. Import that entry for them
 * (`import type {} from 'portal-oauth/machines'` is enough); without it the same values are typed by what they offer.
 */
// biome-ignore lint/suspicious/noEmptyInterface: augmented by portal-oauth/machines.
export interface XStateTypes {}

/** `K` of {@link XStateTypes} once `portal-oauth/machines` is imported, `Otherwise` before. */
export type XStateTypeOr<K extends string, Otherwise> = XStateTypes extends { readonly [key in K]: infer T }
  ? T
  : Otherwise
