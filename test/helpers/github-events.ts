// Webhook payloads as GitHub delivers them to a workflow (GITHUB_EVENT_PATH), trimmed to the fields of
// GitHub's documented examples (docs.github.com/webhooks/webhook-events-and-payloads) that a consumer
// could read: `pull_request` (opened / synchronize), `push` and `schedule`.

const OWNER = { login: 'acme', id: 9919, node_id: 'O_kgDOAAAmvw', type: 'Organization', site_admin: false };

export function repository(fullName: string) {
  const [owner = 'acme', name = 'sites'] = fullName.split('/');
  return {
    id: 1296269,
    node_id: 'R_kgDOABPHjQ',
    name,
    full_name: fullName,
    private: true,
    owner: { ...OWNER, login: owner },
    html_url: `https://github.com/${fullName}`,
    fork: owner !== 'acme',
    url: `https://api.github.com/repos/${fullName}`,
    default_branch: 'main',
    visibility: 'private',
  };
}

export function pullRequestEvent(options: {
  number: number;
  headSha: string;
  baseSha: string;
  action?: 'opened' | 'synchronize';
  /** The head's repository: another one is a fork. */
  headRepository?: string;
  /** Who opened it (octocat by default). */
  author?: string;
}) {
  const base = repository('acme/sites');
  const head = repository(options.headRepository ?? 'acme/sites');
  return {
    action: options.action ?? 'opened',
    number: options.number,
    pull_request: {
      url: `https://api.github.com/repos/acme/sites/pulls/${options.number}`,
      id: 1000 + options.number,
      node_id: `PR_kwDOABPHjc${options.number}`,
      html_url: `https://github.com/acme/sites/pull/${options.number}`,
      number: options.number,
      state: 'open',
      locked: false,
      title: 'Add shop.example.com',
      user:
        options.author === undefined
          ? { login: 'octocat', id: 1, type: 'User', site_admin: false }
          : { login: options.author, id: 49699333, type: 'Bot', site_admin: false },
      body: null,
      created_at: '2026-11-26T08:00:00Z',
      updated_at: '2026-11-26T08:30:00Z',
      closed_at: null,
      merged_at: null,
      merge_commit_sha: null,
      draft: false,
      head: {
        label: `${head.owner.login}:add-shop`,
        ref: 'add-shop',
        sha: options.headSha,
        user: head.owner,
        repo: head,
      },
      base: { label: 'acme:main', ref: 'main', sha: options.baseSha, user: base.owner, repo: base },
      author_association: 'MEMBER',
      merged: false,
      mergeable: null,
      commits: 1,
      additions: 2,
      deletions: 0,
      changed_files: 1,
    },
    repository: base,
    organization: OWNER,
    sender: { login: 'octocat', id: 1, type: 'User', site_admin: false },
  };
}

export function pushEvent(options: { before: string; after: string }) {
  const repo = repository('acme/sites');
  return {
    ref: 'refs/heads/main',
    before: options.before,
    after: options.after,
    created: false,
    deleted: false,
    forced: false,
    base_ref: null,
    compare: `https://github.com/acme/sites/compare/${options.before.slice(0, 12)}...${options.after.slice(0, 12)}`,
    commits: [],
    head_commit: {
      id: options.after,
      tree_id: options.after,
      distinct: true,
      message: 'Merge pull request #7',
    },
    repository: repo,
    pusher: { name: 'octocat', email: 'octocat@example.com' },
    organization: OWNER,
    sender: { login: 'octocat', id: 1, type: 'User', site_admin: false },
  };
}

export function scheduleEvent() {
  return {
    schedule: '17 4 * * *',
    repository: repository('acme/sites'),
    workflow: '.github/workflows/websites.yml',
  };
}
