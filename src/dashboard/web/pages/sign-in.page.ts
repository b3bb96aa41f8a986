import { apiForm, field } from '../forms';
import { html, type Html } from '../html';
import { publicPage } from '../layout';

/** GET /login: the form posts to POST /login as JSON; a signed-in visitor goes on to the overview. */
export function loginPage(): Html {
  return publicPage(
    'Sign in',
    html`<div class="panel">
${apiForm({ id: 'login', api: '/login', submit: 'Sign in', success: 'redirect:/' }, [
  field('login', { name: 'email', label: 'Email', type: 'email', required: true, autocomplete: 'username' }),
  field('login', { name: 'password', label: 'Password', type: 'password', required: true, autocomplete: 'current-password' }),
])}
</div>
<p class="muted">No account yet? <a href="/register">Create one</a>.</p>`,
  );
}

/** GET /register: a new organization and its first user. */
export function registerPage(): Html {
  return publicPage(
    'Create an account',
    html`<div class="panel">
${apiForm({ id: 'register', api: '/register', submit: 'Create account', success: 'redirect:/' }, [
  field('register', { name: 'organization', label: 'Organization', required: true, autocomplete: 'organization' }),
  field('register', { name: 'email', label: 'Email', type: 'email', required: true, autocomplete: 'username' }),
  field('register', { name: 'password', label: 'Password', type: 'password', required: true, autocomplete: 'new-password', hint: 'At least 8 characters.' }),
])}
</div>
<p class="muted">Already have an account? <a href="/login">Sign in</a>.</p>`,
  );
}
