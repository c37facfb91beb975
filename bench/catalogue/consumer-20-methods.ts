// A consumer calling 20 documented methods through the typed catalogue (bench/figures/catalogue-budgets.ts
// type-checks it as it is, and with `unchecked: true` on every call).
import type { PortalOAuth } from 'portal-oauth'

declare const portal: PortalOAuth
const v2 = portal.actions.v2.call
export const calls = [
  v2.make({ method: 'crm.deal.get', params: { id: 1 } }),
  v2.make({ method: 'crm.deal.list', params: { select: ['ID', 'TITLE'] } }),
  v2.make({ method: 'crm.deal.add', params: { fields: { TITLE: 'Deal' } } }),
  v2.make({ method: 'crm.deal.update', params: { id: 1, fields: { TITLE: 'Renamed' } } }),
  v2.make({ method: 'crm.deal.delete', params: { id: 1 } }),
  v2.make({ method: 'crm.contact.get', params: { id: 1 } }),
  v2.make({ method: 'crm.contact.list', params: {} }),
  v2.make({ method: 'crm.contact.add', params: { fields: { NAME: 'Ann' } } }),
  v2.make({ method: 'crm.company.get', params: { id: 1 } }),
  v2.make({ method: 'crm.company.list', params: {} }),
  v2.make({ method: 'crm.lead.get', params: { id: 1 } }),
  v2.make({ method: 'crm.lead.list', params: {} }),
  v2.make({ method: 'crm.item.list', params: { entityTypeId: 2 } }),
  v2.make({ method: 'crm.item.get', params: { entityTypeId: 2, id: 1 } }),
  v2.make({ method: 'user.get', params: {} }),
  v2.make({ method: 'user.current' }),
  v2.make({ method: 'profile' }),
  v2.make({ method: 'app.info' }),
  v2.make({ method: 'department.get', params: {} }),
  v2.make({ method: 'disk.storage.getList', params: {} }),
]
