import { getOctokit } from '@actions/github';

// The GitHub REST calls of the Action, through the toolkit's Octokit: the one living comment of a pull
// request, the merged pull request of a commit, and the one drift issue. Each thing the Action writes
// carries a hidden marker (its manifest's: manifest-keys.ts), so it is found again instead of written anew.

export type GitHub = ReturnType<typeof getOctokit>;

export interface Repo {
  owner: string;
  repo: string;
}

/** The most pages of a list read (100 items each): a list that never ends is an error, not a hang. */
export const MAX_PAGES = 100;

/** Attempts of a read (GET) that failed on GitHub's side (5xx) or on the way, and the waits between. */
const READ_ATTEMPTS = 3;
const RETRY_WAITS_MS = [1_000, 2_000];

/**
 * Octokit as the toolkit sets it up (its proxy support included), each request held to the rules the
 * service's are:
 * - bounded by `timeoutMs` (the `timeout` input): an API that accepts and never answers, or whose
 *   answer never ends, fails the job with a message, not after the runner's six hours;
 * - its answer the shape its route has: a list for a read (all the Action's are), an object for a
 *   write. Octokit reads a body it could not read, or one that is not JSON, as text (often empty), and
 *   its paginator reads an empty page as an empty list: taken as it is, a lost page of comments is "no
 *   comment yet", and a second living comment (or drift issue) is written;
 * - a failure says which call and, where GitHub's words do not, what to do;
 * - a read that failed on GitHub's side or on the way is made again (up to 3 times); a write never is,
 *   as one whose answer was lost may have been made (octokit's retry plugin retries writes too).
 */
export function connectGitHub(
  token: string,
  apiUrl: string,
  timeoutMs: number,
  redact: (text: string) => string,
): GitHub {
  const github = getOctokit(token, { baseUrl: apiUrl });
  github.hook.wrap('request', async (request, options) => {
    const call = `${options.method} ${pathOf(options)}`;
    for (let attempt = 1; ; attempt += 1) {
      const signal = AbortSignal.timeout(timeoutMs);
      // In place: the hooks within this one were bound to this very object (before-after-hook).
      options.request = { ...options.request, signal };
      let failure: unknown;
      try {
        const response = await request(options);
        if (!signal.aborted) return checkedShape(call, options.method, response);
      } catch (error) {
        failure = error;
      }
      if (signal.aborted) throw new Error(`GitHub did not answer ${call} within ${timeoutMs / 1000} s`);
      if (isRead(options) && attempt < READ_ATTEMPTS && transient(failure)) {
        await new Promise((resolve) => setTimeout(resolve, RETRY_WAITS_MS[attempt - 1]));
        continue;
      }
      throw new Error(failureOf(call, failure, attempt, redact));
    }
  });
  return github;
}

/** A GET, or the Action's one GraphQL call: a query (who the token is), never a mutation. */
function isRead(options: { method: string; url?: string; [key: string]: unknown }): boolean {
  return options.method === 'GET' || pathOf(options).endsWith('/graphql');
}

/** A route's `{owner}` filled in; a next page's URL without its origin and query. */
function pathOf(options: { url?: string; [key: string]: unknown }): string {
  const url = String(options.url).replace(/\{(\w+)\}/g, (name, key: string) => String(options[key] ?? name));
  return new URL(url, 'http://github.invalid').pathname;
}

function checkedShape<T extends { data: unknown }>(call: string, method: string, response: T): T {
  const data = response.data;
  const list = Array.isArray(data);
  const shaped = method === 'GET' ? list : typeof data === 'object' && data !== null && !list;
  if (shaped) return response;
  const what =
    data === '' || data === undefined
      ? 'an empty body'
      : `${typeof data === 'string' ? 'text' : list ? 'a list' : typeof data}`;
  throw new Error(
    `GitHub's answer to ${call} is not ${method === 'GET' ? 'a list' : 'an object'} but ${what}; stopped before acting on it`,
  );
}

function statusOf(error: unknown): number | undefined {
  const status = (error as { status?: unknown } | undefined)?.status;
  return typeof status === 'number' ? status : undefined;
}

/** GitHub's side (5xx) or the way there (no status: a reset, a refused connection). */
function transient(error: unknown): boolean {
  const status = statusOf(error);
  return status === undefined || status >= 500;
}

const HINTS: Record<number, string> = {
  401: 'the github-token input is not a valid token',
  403: "the token lacks a permission this job needs: give the workflow's job `permissions:` contents: write, pull-requests: write and issues: write (a pull request from a fork gets a read-only token)",
  404: 'not found, or not visible to the token',
};

/**
 * A failed call in one line: which call, GitHub's status and words, and what to do. The words are
 * masked before they are cut (an answer that echoes the token, cut across it, would show its start).
 */
function failureOf(call: string, error: unknown, attempts: number, redact: (text: string) => string): string {
  const status = statusOf(error);
  const words = redact(error instanceof Error ? error.message : String(error))
    .replace(/\s+/g, ' ')
    .trim();
  const said = words.length > 200 ? `${words.slice(0, 200)}…` : words;
  const tries = attempts > 1 ? ` (${attempts} attempts)` : '';
  if (status === undefined) return `GitHub did not answer ${call}${tries}: ${said}`;
  const hint = HINTS[status];
  return `GitHub answered ${call} with ${status}${tries}: ${said}${hint ? `; ${hint}` : ''}`;
}

/** Every item of a paginated list, at most MAX_PAGES pages: a next link that never ends is refused. */
async function allPages<T>(
  pages: AsyncIterable<{ data: T[]; headers: { link?: string } }>,
  what: string,
): Promise<T[]> {
  const items: T[] = [];
  let count = 0;
  for await (const page of pages) {
    items.push(...page.data);
    // The last page read says whether there is another: refused without asking for it.
    if (++count >= MAX_PAGES && /rel="next"/.test(page.headers.link ?? '')) {
      throw new Error(`GitHub listed ${what} in more than ${MAX_PAGES} pages of 100; stopped reading`);
    }
  }
  return items;
}

/** Edits the comment that carries `marker` on issue or pull request `number`, or writes it. */
export async function upsertComment(
  github: GitHub,
  where: Repo & { number: number },
  marker: string,
  body: string,
): Promise<{ id: number; created: boolean; url: string }> {
  const { owner, repo, number } = where;
  const comments = await allPages(
    github.paginate.iterator(github.rest.issues.listComments, {
      owner,
      repo,
      issue_number: number,
      per_page: 100,
    }),
    `the comments of #${number}`,
  );
  // The marker opens the body, and anyone can write it: only a comment the token itself wrote is
  // edited. A contributor's would put the plan under their name, for them to edit into another plan;
  // another app's (a bot too) may not be the token's to edit (403), or is that app's own text.
  const identity = await tokenIdentity(github);
  const mine = comments.find((c) => c.body?.startsWith(marker) && writtenBy(c.user, identity));
  if (mine) {
    const { data } = await github.rest.issues.updateComment({ owner, repo, comment_id: mine.id, body });
    return { id: data.id, created: false, url: data.html_url };
  }
  const { data } = await github.rest.issues.createComment({ owner, repo, issue_number: number, body });
  return { id: data.id, created: true, url: data.html_url };
}

/** The account a token writes as: `id` when GitHub gave it (a user's or a bot's number). */
export interface TokenIdentity {
  login: string;
  id?: number;
}

/** Each client's token's account, asked once: a job may look for its comment or issue several times. */
const identities = new WeakMap<GitHub, Promise<TokenIdentity>>();

/**
 * Who the token writes as: GraphQL's `viewer` answers for every kind of token (the job's own,
 * `github-actions[bot]`; an App's installation token, `<app slug>[bot]`; a personal token, its user),
 * where REST's GET /user refuses an installation token and GET /app wants the App's own JWT.
 */
export function tokenIdentity(github: GitHub): Promise<TokenIdentity> {
  let asked = identities.get(github);
  if (asked === undefined) {
    asked = askIdentity(github);
    // A failed question is asked again next time, not remembered.
    asked.catch(() => identities.delete(github));
    identities.set(github, asked);
  }
  return asked;
}

async function askIdentity(github: GitHub): Promise<TokenIdentity> {
  const { viewer } = await github.graphql<{ viewer: { login: string; databaseId?: number | null } }>(
    'query { viewer { login databaseId } }',
  );
  return { login: viewer.login, ...(typeof viewer.databaseId === 'number' ? { id: viewer.databaseId } : {}) };
}

/**
 * Whether `user` (a comment's or an issue's author) is the token's account: by number when both have
 * one (a login can be renamed and taken again), else by login (which ignores case).
 */
function writtenBy(
  user: { login?: string; id?: number } | null | undefined,
  identity: TokenIdentity,
): boolean {
  if (!user) return false;
  if (identity.id !== undefined && user.id !== undefined) return user.id === identity.id;
  return user.login?.toLowerCase() === identity.login.toLowerCase();
}

export interface MergedPull {
  number: number;
  headSha: string;
}

/** The pull request merged as commit `sha` (a merge, squash or rebase commit), if any. */
export async function mergedPullOf(
  github: GitHub,
  where: Repo,
  sha: string,
): Promise<MergedPull | undefined> {
  const { data } = await github.rest.repos.listPullRequestsAssociatedWithCommit({
    ...where,
    commit_sha: sha,
  });
  const merged = data.find((p) => p.merged_at && p.merge_commit_sha === sha) ?? data.find((p) => p.merged_at);
  return merged ? { number: merged.number, headSha: merged.head.sha } : undefined;
}

export interface DriftIssue {
  number: number;
  createdAt: string;
  url: string;
}

/** The open drift issue: labelled `label`, with `marker` (a label alone can be put on anything). */
export async function findDriftIssue(
  github: GitHub,
  where: Repo,
  { label, marker }: { label: string; marker: string },
): Promise<DriftIssue | undefined> {
  const issues = await allPages(
    github.paginate.iterator(github.rest.issues.listForRepo, {
      ...where,
      labels: label,
      state: 'open',
      per_page: 100,
    }),
    `the open issues labelled ${label}`,
  );
  // As for the plan comment: an issue template can label anyone's issue, another app can write the
  // marker; only the token's own issue is the drift issue.
  const identity = await tokenIdentity(github);
  const found = issues.find(
    (i) => !i.pull_request && i.body?.startsWith(marker) && writtenBy(i.user, identity),
  );
  return found ? { number: found.number, createdAt: found.created_at, url: found.html_url } : undefined;
}

export async function openDriftIssue(
  github: GitHub,
  where: Repo,
  issue: { title: string; body: string; label: string },
): Promise<DriftIssue> {
  const { data } = await github.rest.issues.create({
    ...where,
    title: issue.title,
    body: issue.body,
    labels: [issue.label],
  });
  return { number: data.number, createdAt: data.created_at, url: data.html_url };
}

export async function updateIssue(github: GitHub, where: Repo & { number: number }, body: string) {
  const { number, ...repo } = where;
  await github.rest.issues.update({ ...repo, issue_number: number, body });
}

/** Says why in a comment, then closes the issue as completed. */
export async function closeIssue(github: GitHub, where: Repo & { number: number }, comment: string) {
  const { number, ...repo } = where;
  await github.rest.issues.createComment({ ...repo, issue_number: number, body: comment });
  await github.rest.issues.update({
    ...repo,
    issue_number: number,
    state: 'closed',
    state_reason: 'completed',
  });
}
