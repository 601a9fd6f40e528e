import { getOctokit } from '@actions/github';

// The GitHub REST calls of the Action, through the toolkit's Octokit: the one living comment of a pull
// request, the merged pull request of a commit, and the one drift issue. Each thing the Action writes
// carries a hidden marker, so it is found again instead of written anew.

export type GitHub = ReturnType<typeof getOctokit>;

export interface Repo {
  owner: string;
  repo: string;
}

export const PLAN_MARKER = '<!-- websites-sync plan -->';
/** The comment on a merged pull request whose reviewed plan was stale at the apply. */
export const STALE_MARKER = '<!-- websites-sync stale plan -->';
export const DRIFT_MARKER = '<!-- websites-sync drift -->';

/** The most pages of a list read (100 items each): a list that never ends is an error, not a hang. */
export const MAX_PAGES = 100;

/**
 * Octokit as the toolkit sets it up (its proxy support included), each request bounded by `timeoutMs`
 * (the `timeout` input, as for the service's): an API that accepts and never answers fails the job
 * with a message, not after the runner's six hours.
 */
export function connectGitHub(token: string, apiUrl: string, timeoutMs: number): GitHub {
  const github = getOctokit(token, { baseUrl: apiUrl });
  github.hook.wrap('request', async (request, options) => {
    const signal = AbortSignal.timeout(timeoutMs);
    // In place: the hooks within this one were bound to this very object (before-after-hook).
    options.request = { ...options.request, signal };
    try {
      return await request(options);
    } catch (error) {
      if (!signal.aborted) throw error;
      // A route's `{owner}` filled in, a next page's URL without its origin and query.
      const url = String(options.url).replace(/\{(\w+)\}/g, (name, key: string) =>
        String(options[key] ?? name),
      );
      const path = new URL(url, 'http://github.invalid').pathname;
      throw new Error(`GitHub did not answer ${options.method} ${path} within ${timeoutMs / 1000} s`);
    }
  });
  return github;
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
  // The marker opens the body, and anyone can write it: only a comment of a bot (the token's, whichever
  // app it is) or of the repository's owner, a member of its organisation or a collaborator is edited.
  // Editing a contributor's would put the plan under their name, and they could then edit it into
  // another plan. A bot's is preferred.
  const marked = comments.filter((c) => c.body?.startsWith(marker) && mayCarryPlan(c));
  const mine = marked.find((c) => c.user?.type === 'Bot') ?? marked[0];
  if (mine) {
    const { data } = await github.rest.issues.updateComment({ owner, repo, comment_id: mine.id, body });
    return { id: data.id, created: false, url: data.html_url };
  }
  const { data } = await github.rest.issues.createComment({ owner, repo, issue_number: number, body });
  return { id: data.id, created: true, url: data.html_url };
}

/**
 * Who may have written a living comment or issue: a bot, or the owner, an organisation member or a
 * collaborator (a personal token's user is one).
 */
const WRITERS = new Set(['OWNER', 'MEMBER', 'COLLABORATOR']);

function mayCarryPlan(comment: { user?: { type?: string } | null; author_association?: string }): boolean {
  return comment.user?.type === 'Bot' || WRITERS.has(comment.author_association ?? '');
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

/** The open drift issue: labelled `label`, with the marker (a label alone can be put on anything). */
export async function findDriftIssue(
  github: GitHub,
  where: Repo,
  label: string,
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
  // As for the plan comment: an issue template can label anyone's issue, so its author counts too.
  const found = issues.find((i) => !i.pull_request && i.body?.startsWith(DRIFT_MARKER) && mayCarryPlan(i));
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
