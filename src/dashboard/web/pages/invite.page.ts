import { apiForm, field } from '../forms';
import { html, type Html } from '../html';
import { publicPage } from '../layout';

/**
 * GET /invite/{token}: the invitee sets a password (a new email) or gives the account's (an email
 * that has one), joins and lands on the overview. A token not open (used, withdrawn, expired or
 * unknown) gets a page saying so.
 */
export function invitePage(token: string, invite: { orgName: string; email: string; role: string; hasAccount: boolean } | null): Html {
  if (!invite) {
    return publicPage('Invite not valid', html`<div class="panel"><p>This invite link is not valid: it was used, withdrawn or has expired. Ask the organization's owner for a new one.</p>
<p><a href="/login">Sign in</a></p></div>`);
  }
  const password = invite.hasAccount
    ? field('accept', { name: 'password', label: 'Your password', type: 'password', required: true, autocomplete: 'current-password', hint: `${invite.email} has an account: sign in with its password to join.` })
    : field('accept', { name: 'password', label: 'Choose a password', type: 'password', required: true, autocomplete: 'new-password', hint: 'At least 8 characters.' });
  return publicPage(
    `Join ${invite.orgName}`,
    html`<div class="panel">
<p>You were invited as <strong>${invite.role}</strong> with the email <strong>${invite.email}</strong>.</p>
${apiForm({ id: 'accept', api: '/api/dashboard/invites/accept', submit: invite.hasAccount ? 'Sign in and join' : 'Create account and join', success: 'redirect:/', body: { token } }, [password])}
</div>`,
  );
}
