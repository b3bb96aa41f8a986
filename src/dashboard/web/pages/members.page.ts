import type { Role } from '../../../auth/sessions';
import type { Page } from '../../../http/pagination';
import type { InviteView, MemberView } from '../../../members/members.model';
import { copyBox } from '../copy-box';
import { apiForm, field } from '../forms';
import { html, type Html } from '../html';
import { appPage } from '../layout';
import { pager } from '../pager';

const ROLE_OPTIONS = [
  ['analyst', 'Analyst: reads everything, changes nothing'],
  ['admin', 'Admin: everything but members and roles'],
  ['owner', 'Owner: everything, members and roles too'],
] as const;
const day = (iso: string) => iso.slice(0, 10);

function memberRow(member: MemberView, viewer: { userId: string; owner: boolean }): Html {
  const you = member.user_id === viewer.userId ? html` <span class="muted small">(you)</span>` : '';
  if (!viewer.owner) return html`<tr><td>${member.email}${you}</td><td>${member.role}</td><td>${day(member.joined_at)}</td><td></td></tr>`;
  const form = `member-${member.user_id}`;
  return html`<tr><td>${member.email}${you}</td>
<td>${apiForm({ id: form, api: `/api/dashboard/members/${member.user_id}`, method: 'PATCH', submit: 'Change role', changedOnly: true, label: `Role of ${member.email}` }, [
    field(form, { name: 'role', label: 'Role', options: ROLE_OPTIONS.map(([value]) => [value, value] as const), value: member.role }),
  ])}</td>
<td>${day(member.joined_at)}</td>
<td><button type="button" class="danger" data-api="/api/dashboard/members/${member.user_id}" data-method="DELETE" data-confirm="Remove ${member.email}? Their sessions end at once." data-error="member-error-${member.user_id}" aria-label="Remove ${member.email}">Remove</button>
<p class="error" id="member-error-${member.user_id}" role="alert" hidden></p></td></tr>`;
}

function invitesTable(invites: readonly InviteView[], owner: boolean): Html {
  if (invites.length === 0) return html`<p class="muted" id="invites-list">No open invites.</p>`;
  const rows = invites.map(
    (invite) => html`<tr><td>${invite.email}</td><td>${invite.role}</td><td>${day(invite.expires_at)}</td><td>${owner
      ? html`<button type="button" class="danger" data-api="/api/dashboard/invites/${invite.id}" data-method="DELETE" data-error="invite-error-${invite.id}" aria-label="Withdraw invite of ${invite.email}">Withdraw</button><p class="error" id="invite-error-${invite.id}" role="alert" hidden></p>`
      : ''}</td></tr>`,
  );
  return html`<div class="table-box" id="invites-list"><table>
<thead><tr><th scope="col">Email</th><th scope="col">Role</th><th scope="col">Expires (UTC)</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
<tbody>${rows}</tbody></table></div>`;
}

/** GET /members: who is in the organization with which role; owners invite, change roles and remove. */
export function membersPage(input: { members: Page<MemberView>; invites: readonly InviteView[]; first: boolean; viewer: { userId: string; role: Role } }): Html {
  const owner = input.viewer.role === 'owner';
  const invite = owner
    ? html`<div class="panel">
<h2>Invite a member</h2>
<p class="muted small">No mail is sent: copy the link and give it to the person. It works once, for 7 days, and is stored only as a hash.</p>
${apiForm({ id: 'invite', api: '/api/dashboard/invites', submit: 'Create invite link', success: 'show:url', result: 'invite-url', refresh: 'invites-list' }, [
  field('invite', { name: 'email', label: 'Email', type: 'email', required: true, autocomplete: 'off' }),
  field('invite', { name: 'role', label: 'Role', options: ROLE_OPTIONS, value: 'analyst' }),
])}
${copyBox({ id: 'invite-url', notice: 'Copy the link now: it is shown this once.' })}
</div>`
    : html`<p class="muted">Only owners invite members and change roles.</p>`;
  return appPage(
    { title: 'Members', current: '/members' },
    html`${invite}
<div class="panel">
<h2>Members</h2>
<div class="table-box"><table>
<thead><tr><th scope="col">Email</th><th scope="col">Role</th><th scope="col">Joined (UTC)</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
<tbody>${input.members.data.map((member) => memberRow(member, { userId: input.viewer.userId, owner }))}</tbody></table></div>
${pager('/members', { next_cursor: input.members.next_cursor, first: input.first, shown: input.members.data.length })}
</div>
<div class="panel">
<h2>Open invites</h2>
${invitesTable(input.invites, owner)}
</div>`,
  );
}
