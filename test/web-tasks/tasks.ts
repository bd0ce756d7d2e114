/**
 * A small offline suite of web tasks in the spirit of MiniWoB++. Each page shows a query in
 * `<div id="query">`, holds a problem generated from a seed, checks the answer in its own
 * script, shows `Reward: 1` or `Reward: 0 (reason)` in `<div id="result" role="status">`, and
 * posts the report to `/reward` on the same server (see server.ts).
 *
 * The problem is generated here from the seed (mulberry32), so the same seed always gives the
 * same page. Pages are self-contained: inline style and script, no other hosts.
 */

/** One task of the suite. */
export interface WebTask {
  name: string;
  title: string;
  /** what the agent is told to do, generic: the real instructions are on the page */
  goal: string;
  /** number of pages in the flow */
  pages: number;
}

const GOAL = 'Do what the instructions on the page say. They are in the query under the heading.';

/** The tasks, in the order of the index page. */
export const TASKS: readonly WebTask[] = [
  { name: 'login', title: 'Log in', goal: GOAL, pages: 1 },
  { name: 'form', title: 'Contact form', goal: GOAL, pages: 1 },
  { name: 'select-radio', title: 'Delivery options', goal: GOAL, pages: 1 },
  { name: 'checkboxes', title: 'Checkboxes', goal: GOAL, pages: 1 },
  { name: 'table-lookup', title: 'Price list', goal: GOAL, pages: 1 },
  { name: 'multi-page', title: 'Shop', goal: GOAL, pages: 3 },
  { name: 'late-content', title: 'Secret code', goal: GOAL, pages: 1 },
  { name: 'modal', title: 'Newsletter', goal: GOAL, pages: 1 },
];

// ---------------------------------------------------------------- seeded generation

type Rng = () => number;

/** mulberry32: a small 32-bit PRNG, uniform in [0, 1). */
export function mulberry32(seed: number): Rng {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The generator for one task and seed: the task name is mixed in so tasks with one seed differ. */
function rngFor(task: string, seed: number): Rng {
  let h = 2166136261;
  for (const ch of task) h = Math.imul(h ^ ch.charCodeAt(0), 16777619);
  return mulberry32((seed ^ h) >>> 0);
}

const int = (rng: Rng, lo: number, hi: number): number => lo + Math.floor(rng() * (hi - lo + 1));

function pick<T>(rng: Rng, items: readonly T[]): T {
  return items[Math.floor(rng() * items.length)] as T;
}

function shuffled<T>(rng: Rng, items: readonly T[]): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(rng() * (i + 1));
    [out[i], out[j]] = [out[j] as T, out[i] as T];
  }
  return out;
}

const sample = <T>(rng: Rng, items: readonly T[], n: number): T[] => shuffled(rng, items).slice(0, n);

const chars = (rng: Rng, alphabet: string, n: number): string => Array.from({ length: n }, () => alphabet[Math.floor(rng() * alphabet.length)] ?? '').join('');

const USERS = ['kim', 'lee', 'ana', 'raj', 'tom', 'eva', 'sam', 'noa', 'ivo', 'zoe', 'max', 'mia'];
const FIRST = ['Ada', 'Ben', 'Chloe', 'Dev', 'Elena', 'Farid', 'Grace', 'Hugo', 'Ines', 'Jonas', 'Keiko', 'Liam'];
const LAST = ['Park', 'Okafor', 'Silva', 'Novak', 'Berg', 'Tanaka', 'Moreau', 'Quinn', 'Haddad', 'Larsen'];
const DOMAINS = ['example.com', 'example.org', 'example.net'];
const COMMENTS = [
  'Call after 5pm',
  'Leave the parcel at the door',
  'Please send a paper invoice',
  'No calls on weekends',
  'Ring the bell twice',
  'Deliver to the back entrance',
];
const COUNTRIES = ['France', 'Germany', 'Spain', 'Italy', 'Portugal', 'Norway', 'Japan', 'Canada', 'Brazil', 'Kenya', 'Chile', 'Poland'];
const SHIPPING = ['Standard', 'Express', 'Overnight'];
const WORDS = ['apple', 'river', 'stone', 'cloud', 'maple', 'tiger', 'lemon', 'piano', 'amber', 'comet', 'violet', 'harbor'];
const COLOURS = ['Blue', 'Red', 'Green', 'Black', 'White', 'Yellow', 'Grey', 'Orange'];
const ITEMS = ['kettle', 'toaster', 'lamp', 'mug', 'chair', 'clock', 'fan', 'blender'];
const CODE_CHARS = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';

/** `n` distinct product names such as "Blue kettle". */
const products = (rng: Rng, n: number): string[] =>
  sample(
    rng,
    COLOURS.flatMap((c) => ITEMS.map((i) => `${c} ${i}`)),
    n,
  );

const quoted = (values: readonly string[]): string => values.map((v) => `"${v}"`).join(', ');

const slug = (name: string): string => name.toLowerCase().replace(/[^a-z0-9]+/g, '-');

// ---------------------------------------------------------------- page template

const ENTITIES: Readonly<Record<string, string>> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
const esc = (s: string): string => s.replace(/[&<>"']/g, (c) => ENTITIES[c] ?? c);

/** JSON that is safe inside a `<script>` element. */
const scriptJson = (value: unknown): string =>
  JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');

const STYLE = `
body { font: 16px/1.4 system-ui, sans-serif; margin: 0; padding: 1rem 2rem; color: #222; }
#query { background: #fff6d6; border: 1px solid #e0c36a; padding: .5rem .75rem; margin: .5rem 0 1rem; }
label { display: block; margin-top: .6rem; }
input[type=checkbox] + label, input[type=radio] + label { display: inline; margin: 0 1rem 0 .25rem; }
input, select, textarea, button { font: inherit; }
button { margin-top: .8rem; padding: .3rem .9rem; }
table { border-collapse: collapse; margin: .5rem 0; }
th, td { border: 1px solid #bbb; padding: .25rem .6rem; text-align: left; }
#result { margin-top: 1rem; font-weight: bold; }
#report { color: #666; font-size: .9rem; }
.overlay { position: fixed; inset: 0; background: rgba(0, 0, 0, .55); z-index: 10; display: flex; align-items: center; justify-content: center; }
.overlay[hidden] { display: none; }
.dialog { background: #fff; padding: 1rem 1.5rem; border-radius: 6px; max-width: 24rem; }
header { position: relative; z-index: 20; background: #fff; }`;

/**
 * The client helpers every page gets: `el(id)`, `val(id)` (trimmed value) and
 * `finish(ok, reason)`, which shows the reward, locks the controls and reports to the server once.
 */
const HELPERS = `
const el = (id) => document.getElementById(id);
const val = (id) => el(id).value.trim();
let finished = false;
function finish(ok, reason) {
  if (finished) return;
  finished = true;
  const reward = ok ? 1 : 0;
  el('result').textContent = 'Reward: ' + reward + (ok ? '' : ' (' + reason + ')');
  for (const c of document.querySelectorAll('input, select, textarea, button')) c.disabled = true;
  const report = { episode: CTX.episode, task: CTX.task, seed: CTX.seed, reward: reward, detail: ok ? 'correct' : reason };
  fetch('/reward', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(report), keepalive: true })
    .then((r) => { el('report').textContent = r.ok ? 'Reward reported.' : r.status === 409 ? 'Not recorded: this episode already has a reward.' : 'Report refused (' + r.status + ').'; })
    .catch(() => { el('report').textContent = 'Could not report the reward.'; });
}
const got = (what, value) => what + ' is "' + value + '"';`;

interface PageParts {
  task: string;
  seed: number;
  episode: string;
  heading: string;
  query: string;
  /** HTML between the query and the result. */
  body: string;
  /** The task's data, as `DATA` in the script. */
  data: unknown;
  /** Client code that runs after the helpers. */
  script: string;
  /** HTML after the result (outside `<main>`), e.g. a modal. */
  after?: string;
}

function layout(p: PageParts): string {
  const ctx = { task: p.task, seed: p.seed, episode: p.episode };
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>${esc(p.heading)}</title>
<link rel="icon" href="data:,">
<style>${STYLE}
</style>
</head>
<body>
<header>
<h1>${esc(p.heading)}</h1>
<div id="query">${esc(p.query)}</div>
</header>
<main>
${p.body}
<div id="result" role="status"></div>
<p id="report"></p>
</main>
${p.after ?? ''}
<script>
const CTX = ${scriptJson(ctx)};
const DATA = ${scriptJson(p.data)};
${HELPERS}
${p.script}
</script>
</body>
</html>
`;
}

// ---------------------------------------------------------------- the tasks

type Built = Omit<PageParts, 'task' | 'seed' | 'episode' | 'heading'>;
type Builder = (rng: Rng, page: number, ctx: { seed: number; episode: string }) => Built | undefined;

const login: Builder = (rng, page) => {
  if (page !== 1) return undefined;
  const username = pick(rng, USERS) + String(int(rng, 10, 99));
  const password = chars(rng, 'abcdefghjkmnpqrstuvwxyz23456789', 5);
  return {
    query: `Log in with username "${username}" and password "${password}"`,
    data: { username, password },
    body: `<form id="form" novalidate>
<label for="username">Username</label><input id="username" autocomplete="off">
<label for="password">Password</label><input id="password" type="password" autocomplete="off">
<button type="submit">Log in</button>
</form>`,
    script: `el('form').addEventListener('submit', (e) => {
  e.preventDefault();
  const u = val('username'), p = val('password');
  if (u !== DATA.username) finish(false, got('username', u));
  else if (p !== DATA.password) finish(false, 'wrong password');
  else finish(true);
});`,
  };
};

const form: Builder = (rng, page) => {
  if (page !== 1) return undefined;
  const first = pick(rng, FIRST);
  const last = pick(rng, LAST);
  const v = {
    name: `${first} ${last}`,
    email: `${first.toLowerCase()}.${last.toLowerCase()}@${pick(rng, DOMAINS)}`,
    age: String(int(rng, 18, 80)),
    comments: pick(rng, COMMENTS),
  };
  return {
    query: `Fill in the form: name "${v.name}", email "${v.email}", age "${v.age}", comments "${v.comments}"`,
    data: v,
    body: `<form id="form" novalidate>
<label for="name">Full name</label><input id="name" autocomplete="off">
<label for="email">Email</label><input id="email" type="email" autocomplete="off">
<label for="age">Age</label><input id="age" type="number" min="0" max="150">
<label for="comments">Comments</label><textarea id="comments" rows="3" cols="40"></textarea>
<div><button type="submit">Submit</button></div>
</form>`,
    script: `el('form').addEventListener('submit', (e) => {
  e.preventDefault();
  for (const [id, what] of [['name', 'name'], ['email', 'email'], ['age', 'age'], ['comments', 'comments']]) {
    if (val(id) !== DATA[id]) return finish(false, got(what, val(id)));
  }
  finish(true);
});`,
  };
};

const selectRadio: Builder = (rng, page) => {
  if (page !== 1) return undefined;
  const countries = sample(rng, COUNTRIES, 6);
  const country = pick(rng, countries);
  const shipping = pick(rng, SHIPPING);
  const options = countries.map((c) => `<option>${esc(c)}</option>`).join('');
  const radios = SHIPPING.map((s) => `<input type="radio" name="shipping" id="ship-${slug(s)}" value="${s}"><label for="ship-${slug(s)}">${s}</label>`).join(
    '\n',
  );
  return {
    query: `Choose "${country}" as the country and "${shipping}" shipping`,
    data: { country, shipping },
    body: `<form id="form" novalidate>
<label for="country">Country</label><select id="country"><option value="">Choose a country</option>${options}</select>
<fieldset><legend>Shipping</legend>
${radios}
</fieldset>
<button type="submit">Submit</button>
</form>`,
    script: `el('form').addEventListener('submit', (e) => {
  e.preventDefault();
  const c = val('country');
  const s = document.querySelector('input[name=shipping]:checked')?.value ?? '';
  if (c !== DATA.country) finish(false, got('country', c));
  else if (s !== DATA.shipping) finish(false, got('shipping', s));
  else finish(true);
});`,
  };
};

const checkboxes: Builder = (rng, page) => {
  if (page !== 1) return undefined;
  const words = sample(rng, WORDS, 6);
  const targets = sample(rng, words, int(rng, 2, 4));
  const wanted = words.filter((w) => targets.includes(w));
  let ticked = words.map(() => rng() < 0.4);
  // The starting state must never already be the answer, and something starts ticked.
  if (words.every((w, i) => ticked[i] === wanted.includes(w))) ticked = ticked.map((t, i) => (i === 0 ? !t : t));
  if (!ticked.includes(true)) ticked[words.findIndex((w) => !wanted.includes(w))] = true;
  const boxes = words
    .map((w, i) => `<div><input type="checkbox" id="box-${w}" value="${w}"${ticked[i] ? ' checked' : ''}><label for="box-${w}">${w}</label></div>`)
    .join('\n');
  return {
    query: `Tick exactly these boxes: ${quoted(wanted)} and leave the others unticked`,
    data: { wanted },
    body: `<form id="form" novalidate>
<fieldset><legend>Words</legend>
${boxes}
</fieldset>
<button type="submit">Submit</button>
</form>`,
    script: `el('form').addEventListener('submit', (e) => {
  e.preventDefault();
  const on = [...document.querySelectorAll('input[type=checkbox]:checked')].map((c) => c.value);
  const missing = DATA.wanted.filter((w) => !on.includes(w));
  const extra = on.filter((w) => !DATA.wanted.includes(w));
  if (missing.length > 0) finish(false, 'not ticked: ' + missing.join(', '));
  else if (extra.length > 0) finish(false, 'should not be ticked: ' + extra.join(', '));
  else finish(true);
});`,
  };
};

const tableLookup: Builder = (rng, page) => {
  if (page !== 1) return undefined;
  const rows = products(rng, int(rng, 6, 8)).map((name) => ({ name, price: (int(rng, 150, 9999) / 100).toFixed(2), stock: int(rng, 0, 60) }));
  const target = pick(rng, rows);
  const body = rows.map((r) => `<tr><td>${r.name}</td><td>${r.price}</td><td>${r.stock}</td></tr>`).join('\n');
  return {
    query: `Find the price of "${target.name}", save it as the variable "price", then enter it in the box below and press Check`,
    data: { price: target.price },
    body: `<table>
<caption>Products</caption>
<thead><tr><th>Product</th><th>Price</th><th>Stock</th></tr></thead>
<tbody>
${body}
</tbody>
</table>
<form id="form" novalidate>
<label for="price">Price</label><input id="price" autocomplete="off">
<button type="submit">Check</button>
</form>`,
    script: `el('form').addEventListener('submit', (e) => {
  e.preventDefault();
  const p = val('price');
  if (p !== DATA.price) finish(false, got('price', p));
  else finish(true);
});`,
  };
};

const multiPage: Builder = (rng, page, ctx) => {
  const names = products(rng, 5);
  const product = pick(rng, names);
  const quantity = int(rng, 2, 9);
  const query = `Order ${quantity} of "${product}" and confirm`;
  const link = (p: number, extra: Record<string, string>): string =>
    `/tasks/multi-page/${p}?${new URLSearchParams({ seed: String(ctx.seed), episode: ctx.episode, ...extra }).toString()}`;
  const catalogue = Object.fromEntries(names.map((n) => [slug(n), n]));
  const data = { catalogue, product: slug(product), quantity };
  // Pages 2 and 3 read the choice so far from their own address.
  const chosen = `const params = new URLSearchParams(location.search);
const product = params.get('product') ?? '';
const productName = Object.hasOwn(DATA.catalogue, product) ? DATA.catalogue[product] : undefined;
if (productName === undefined) el('product').textContent = 'Unknown product. Go back and choose one from the list.';
else el('product').textContent = productName;`;
  const startOver = `<p><a href="${esc(link(1, {}))}">Start over</a></p>`;
  if (page === 1) {
    return {
      query,
      data,
      body: `<p>Choose a product:</p>
<ul aria-label="Products">
${names.map((n) => `<li><a href="${esc(link(2, { product: slug(n) }))}">${esc(n)}</a></li>`).join('\n')}
</ul>`,
      script: '',
    };
  }
  if (page === 2) {
    return {
      query,
      data,
      body: `<p>Product: <strong id="product"></strong></p>
<form id="form" novalidate>
<label for="quantity">Quantity</label><input id="quantity" type="number" min="1" max="99">
<div id="error" role="alert"></div>
<button type="submit">Continue</button>
</form>
${startOver}`,
      script: `${chosen}
el('form').addEventListener('submit', (e) => {
  e.preventDefault();
  const q = val('quantity');
  if (productName === undefined) el('error').textContent = 'Choose a product first.';
  else if (!/^[0-9]{1,2}$/.test(q) || Number(q) < 1) el('error').textContent = 'Enter a whole number from 1 to 99.';
  else location.href = '/tasks/multi-page/3?' + new URLSearchParams({ seed: String(CTX.seed), episode: CTX.episode, product: product, quantity: String(Number(q)) });
});`,
    };
  }
  if (page === 3) {
    return {
      query,
      data,
      body: `<h2>Order summary</h2>
<p>Product: <strong id="product"></strong></p>
<p>Quantity: <strong id="quantity"></strong></p>
<button type="button" id="confirm">Confirm order</button>
${startOver}`,
      script: `${chosen}
const quantity = params.get('quantity') ?? '';
el('quantity').textContent = quantity;
el('confirm').addEventListener('click', () => {
  if (product !== DATA.product) finish(false, got('product', productName ?? product));
  else if (quantity !== String(DATA.quantity)) finish(false, got('quantity', quantity));
  else finish(true);
});`,
    };
  }
  return undefined;
};

const lateContent: Builder = (rng, page) => {
  if (page !== 1) return undefined;
  const code = chars(rng, CODE_CHARS, 4);
  const delay = int(rng, 400, 1200);
  return {
    query: 'Press the "Start" button, then press "Reveal code" when it appears, and type the code into the box',
    data: { code, delay },
    body: `<button type="button" id="start">Start</button>
<button type="button" id="reveal" hidden>Reveal code</button>
<div id="code-box" hidden><p>Your code is:</p><div id="code"></div></div>
<form id="form" novalidate>
<label for="answer">Code</label><input id="answer" autocomplete="off">
<button type="submit">Submit</button>
</form>`,
    script: `let revealed = false;
el('start').addEventListener('click', () => {
  el('start').disabled = true;
  setTimeout(() => { el('reveal').hidden = false; }, DATA.delay);
});
el('reveal').addEventListener('click', () => {
  revealed = true;
  el('reveal').disabled = true;
  el('code').textContent = DATA.code;
  el('code-box').hidden = false;
});
el('form').addEventListener('submit', (e) => {
  e.preventDefault();
  const c = val('answer');
  if (!revealed) finish(false, 'the code was not revealed');
  else if (c !== DATA.code) finish(false, got('code', c));
  else finish(true);
});`,
  };
};

const modal: Builder = (rng, page) => {
  if (page !== 1) return undefined;
  const email = `${pick(rng, USERS)}${int(rng, 10, 99)}@${pick(rng, DOMAINS)}`;
  return {
    query: `Close the cookie dialog with "Reject", then subscribe with email "${email}"`,
    data: { email },
    body: `<h2>Newsletter</h2>
<form id="form" novalidate>
<label for="email">Email</label><input id="email" type="email" autocomplete="off">
<button type="submit">Subscribe</button>
</form>`,
    after: `<div class="overlay" id="overlay">
<div class="dialog" role="dialog" aria-modal="true" aria-labelledby="cookie-title">
<h2 id="cookie-title">Cookies</h2>
<p>This site would like to store cookies on your device.</p>
<button type="button" id="accept">Accept</button>
<button type="button" id="reject">Reject</button>
</div>
</div>`,
    script: `let choice = '';
const closeDialog = (c) => { choice = c; el('overlay').hidden = true; };
el('accept').addEventListener('click', () => closeDialog('accepted'));
el('reject').addEventListener('click', () => closeDialog('rejected'));
el('form').addEventListener('submit', (e) => {
  e.preventDefault();
  if (choice === '') return;
  const m = val('email');
  if (choice !== 'rejected') finish(false, 'the cookies were accepted');
  else if (m !== DATA.email) finish(false, got('email', m));
  else finish(true);
});`,
  };
};

const BUILDERS: Readonly<Record<string, Builder>> = {
  login,
  form,
  'select-radio': selectRadio,
  checkboxes,
  'table-lookup': tableLookup,
  'multi-page': multiPage,
  'late-content': lateContent,
  modal,
};

/**
 * The full HTML of one page of a task, or undefined for an unknown task or page. The problem
 * depends only on the task and the seed; the episode is carried into the reward report.
 */
export function renderTask(name: string, page: number, seed: number, episode: string): string | undefined {
  const task = TASKS.find((t) => t.name === name);
  const build = Object.hasOwn(BUILDERS, name) ? BUILDERS[name] : undefined;
  if (task === undefined || build === undefined || !Number.isInteger(page) || page < 1 || page > task.pages) return undefined;
  const built = build(rngFor(name, seed), page, { seed, episode });
  if (built === undefined) return undefined;
  const heading = task.pages > 1 ? `${task.title} (step ${page} of ${task.pages})` : task.title;
  return layout({ ...built, task: name, seed, episode, heading });
}
