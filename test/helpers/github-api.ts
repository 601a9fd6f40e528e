import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

// A loopback stand-in for the parts of GitHub's REST API the Action calls, answering with the request
// and response shapes GitHub documents (docs.github.com/rest): issue comments (list, create, update),
// issues (list by label and state, create, update), the pull requests of a commit, and GraphQL's
// `viewer` (who the token is: what it writes is stamped with that account). It checks the
// token, refuses a body over 65,536 characters as GitHub does (422), pages lists with a Link header, and
// records every request for the tests' assertions; `faults` make it hang or page without end.

export const COMMENT_LIMIT = 65_536;

export interface Comment {
  id: number;
  node_id: string;
  url: string;
  html_url: string;
  issue_url: string;
  body: string;
  user: { login: string; id: number; type: string };
  created_at: string;
  updated_at: string;
  author_association: string;
}

export interface Issue {
  id: number;
  node_id: string;
  number: number;
  title: string;
  body: string | null;
  state: 'open' | 'closed';
  state_reason: string | null;
  labels: Array<{ id: number; name: string; color: string; default: boolean }>;
  html_url: string;
  url: string;
  created_at: string;
  updated_at: string;
  closed_at: string | null;
  user: { login: string; id: number; type: string };
  author_association: string;
  pull_request?: { url: string };
}

export interface PullRequest {
  number: number;
  state: 'open' | 'closed';
  merged_at: string | null;
  merge_commit_sha: string | null;
  head: { sha: string; ref: string };
  base: { sha: string; ref: string };
}

export interface RecordedCall {
  method: string;
  path: string;
  body: unknown;
}

export interface FakeGitHub {
  /** The API root to give the Action as GITHUB_API_URL. */
  readonly url: string;
  readonly token: string;
  readonly calls: RecordedCall[];
  /** Comments by issue or pull request number. */
  readonly comments: Map<number, Comment[]>;
  readonly issues: Issue[];
  /** The pull requests each commit belongs to (`GET /repos/{owner}/{repo}/commits/{sha}/pulls`). */
  readonly pullsOfCommit: Map<string, PullRequest[]>;
  /** The time new objects are stamped with. */
  now: Date;
  /**
   * Faults: requests whose `METHOD /path` matches `hang` are read and never answered; with
   * `endlessPages`, every page of a list links to a next one; the next `times` requests that match a
   * `broken` entry get its answer instead of the real one.
   */
  faults: { hang?: RegExp; endlessPages?: boolean; broken?: BrokenAnswer[] };
  close(): Promise<void>;
}

/**
 * An answer that is not GitHub's: `empty`, a 200 with no body; `cut`, a 200 whose body stops part-way
 * (the connection reset); or a status with a body of some type (a proxy's HTML page).
 */
export interface BrokenAnswer {
  call: RegExp;
  times: number;
  answer: 'empty' | 'cut' | { status: number; body: string; type?: string };
}

const BOT = { login: 'github-actions[bot]', id: 41898282, type: 'Bot' };
const PER_PAGE = 30;

/** An account as GitHub's REST answers name it (`user` of a comment or issue). */
export interface Account {
  login: string;
  id: number;
  type: string;
}

export async function startFakeGitHub(options: {
  owner: string;
  repo: string;
  token: string;
  /** The account the token writes as: by default the job's own token's, `github-actions[bot]`. */
  identity?: Account;
}): Promise<FakeGitHub> {
  const { owner, repo, token, identity = BOT } = options;
  let nextId = 1000;
  const state = {
    url: '',
    token,
    calls: [] as RecordedCall[],
    comments: new Map<number, Comment[]>(),
    issues: [] as Issue[],
    pullsOfCommit: new Map<string, PullRequest[]>(),
    now: new Date('2026-11-26T09:00:00Z'),
    faults: {} as FakeGitHub['faults'],
  };
  const web = `https://github.com/${owner}/${repo}`;
  const routes: Array<
    [string, RegExp, (m: RegExpMatchArray, body: Record<string, unknown>, url: URL) => Answer]
  > = [
    [
      'GET',
      /^\/issues\/(\d+)\/comments$/,
      (m, _b, url) => paged(state.comments.get(Number(m[1])) ?? [], url),
    ],
    [
      'POST',
      /^\/issues\/(\d+)\/comments$/,
      (m, body) => {
        const number = Number(m[1]);
        const id = nextId++;
        const stamp = state.now.toISOString();
        const comment: Comment = {
          id,
          node_id: `IC_${id}`,
          url: `${state.url}/repos/${owner}/${repo}/issues/comments/${id}`,
          html_url: `${web}/pull/${number}#issuecomment-${id}`,
          issue_url: `${state.url}/repos/${owner}/${repo}/issues/${number}`,
          body: String(body.body),
          user: identity,
          created_at: stamp,
          updated_at: stamp,
          author_association: 'NONE',
        };
        state.comments.set(number, [...(state.comments.get(number) ?? []), comment]);
        return { status: 201, body: comment };
      },
    ],
    [
      'PATCH',
      /^\/issues\/comments\/(\d+)$/,
      (m, body) => {
        const comment = [...state.comments.values()].flat().find((c) => c.id === Number(m[1]));
        if (!comment) return notFound();
        comment.body = String(body.body);
        comment.updated_at = state.now.toISOString();
        return { status: 200, body: comment };
      },
    ],
    [
      'GET',
      /^\/issues$/,
      (_m, _b, url) => {
        const labels = url.searchParams.get('labels')?.split(',').filter(Boolean) ?? [];
        const wanted = url.searchParams.get('state') ?? 'open';
        const found = state.issues.filter(
          (i) =>
            (wanted === 'all' || i.state === wanted) &&
            labels.every((l) => i.labels.some((x) => x.name === l)),
        );
        return paged(found, url);
      },
    ],
    [
      'POST',
      /^\/issues$/,
      (_m, body) => {
        if (typeof body.title !== 'string' || body.title === '')
          return invalid('Issue', 'title', 'missing_field');
        const number = state.issues.length + 1;
        const stamp = state.now.toISOString();
        const issue: Issue = {
          id: nextId++,
          node_id: `I_${number}`,
          number,
          title: body.title,
          body: typeof body.body === 'string' ? body.body : null,
          state: 'open',
          state_reason: null,
          labels: ((body.labels as string[] | undefined) ?? []).map((name, i) => ({
            id: i + 1,
            name,
            color: 'ededed',
            default: false,
          })),
          html_url: `${web}/issues/${number}`,
          url: `${state.url}/repos/${owner}/${repo}/issues/${number}`,
          created_at: stamp,
          updated_at: stamp,
          closed_at: null,
          user: identity,
          author_association: 'NONE',
        };
        state.issues.push(issue);
        return { status: 201, body: issue };
      },
    ],
    [
      'PATCH',
      /^\/issues\/(\d+)$/,
      (m, body) => {
        const issue = state.issues.find((i) => i.number === Number(m[1]));
        if (!issue) return notFound();
        if (typeof body.body === 'string') issue.body = body.body;
        if (body.state === 'closed' || body.state === 'open') {
          issue.state = body.state;
          issue.closed_at = body.state === 'closed' ? state.now.toISOString() : null;
          issue.state_reason = (body.state_reason as string | undefined) ?? null;
        }
        issue.updated_at = state.now.toISOString();
        return { status: 200, body: issue };
      },
    ],
    [
      'GET',
      /^\/commits\/([0-9a-f]{40})\/pulls$/,
      (m) => ({ status: 200, body: state.pullsOfCommit.get(m[1] ?? '') ?? [] }),
    ],
  ];
  const server = createServer((req, res) => void handle(req, res));
  async function handle(req: IncomingMessage, res: ServerResponse) {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    const url = new URL(req.url ?? '/', state.url);
    const body = text ? (JSON.parse(text) as Record<string, unknown>) : {};
    state.calls.push({ method: req.method ?? '', path: `${url.pathname}${url.search}`, body });
    if (state.faults.hang?.test(`${req.method} ${url.pathname}`)) return;
    const broken = state.faults.broken?.find(
      (b) => b.times > 0 && b.call.test(`${req.method} ${url.pathname}`),
    );
    if (broken) {
      broken.times -= 1;
      return answerBroken(res, broken.answer);
    }
    const answer = route(req, url, body);
    const headers: Record<string, string> = {
      'content-type': 'application/json; charset=utf-8',
      ...answer.headers,
    };
    res.writeHead(answer.status, headers).end(JSON.stringify(answer.body));
  }
  function route(req: IncomingMessage, url: URL, body: Record<string, unknown>): Answer {
    if (req.headers.authorization !== `token ${token}` && req.headers.authorization !== `Bearer ${token}`) {
      return {
        status: 401,
        body: { message: 'Bad credentials', documentation_url: 'https://docs.github.com/rest' },
      };
    }
    if (url.pathname === '/graphql' && req.method === 'POST') return graphql(body, identity);
    const prefix = `/repos/${owner}/${repo}`;
    if (!url.pathname.startsWith(prefix)) return notFound();
    const rest = url.pathname.slice(prefix.length);
    if (typeof body.body === 'string' && body.body.length > COMMENT_LIMIT) {
      return invalid(
        rest.includes('comments') ? 'IssueComment' : 'Issue',
        'body',
        'custom',
        `body is too long (maximum is ${COMMENT_LIMIT} characters)`,
      );
    }
    for (const [method, pattern, answer] of routes) {
      const match = rest.match(pattern);
      if (match && req.method === method) return answer(match, body, url);
    }
    return notFound();
  }
  function paged<T>(items: T[], url: URL): Answer {
    const perPage = Math.min(100, Number(url.searchParams.get('per_page') ?? PER_PAGE));
    const page = Number(url.searchParams.get('page') ?? 1);
    const last = Math.max(1, Math.ceil(items.length / perPage));
    const headers: Record<string, string> = {};
    if (state.faults.endlessPages) {
      const next = new URL(url);
      next.searchParams.set('page', String(page + 1));
      headers.link = `<${next}>; rel="next"`;
    } else if (page < last) {
      const next = new URL(url);
      next.searchParams.set('page', String(page + 1));
      const end = new URL(url);
      end.searchParams.set('page', String(last));
      headers.link = `<${next}>; rel="next", <${end}>; rel="last"`;
    }
    return { status: 200, body: items.slice((page - 1) * perPage, page * perPage), headers };
  }
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    ...state,
    get url() {
      return state.url;
    },
    get now() {
      return state.now;
    },
    set now(value: Date) {
      state.now = value;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        // A request left hanging (faults.hang) would keep the server open.
        server.closeAllConnections();
      }),
  } as FakeGitHub;
}

interface Answer {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

/**
 * GraphQL's `viewer` for the token (a bot's login ends in `[bot]`, as REST names it, and has a
 * `databaseId`, its REST id); any other query is answered as GitHub answers a field it lacks.
 */
function graphql(body: Record<string, unknown>, identity: Account): Answer {
  const query = String(body.query ?? '');
  if (/^\s*(query\s*)?\{\s*viewer\s*\{[\w\s]*\}\s*\}\s*$/.test(query)) {
    return { status: 200, body: { data: { viewer: { login: identity.login, databaseId: identity.id } } } };
  }
  return {
    status: 200,
    body: { errors: [{ message: 'the fake answers only { viewer { login databaseId } }' }] },
  };
}

function notFound(): Answer {
  return { status: 404, body: { message: 'Not Found', documentation_url: 'https://docs.github.com/rest' } };
}

function invalid(resource: string, field: string, code: string, message?: string): Answer {
  return {
    status: 422,
    body: {
      message: 'Validation Failed',
      errors: [{ resource, field, code, ...(message ? { message } : {}) }],
      documentation_url: 'https://docs.github.com/rest',
    },
  };
}

function answerBroken(res: ServerResponse, answer: BrokenAnswer['answer']): void {
  const json = { 'content-type': 'application/json; charset=utf-8' };
  if (answer === 'empty') {
    res.writeHead(200, json).end();
  } else if (answer === 'cut') {
    res.writeHead(200, { ...json, 'content-length': '5000' });
    res.write('[{"id": 1, "body": "<!-- websites-sync', () => res.socket?.destroy());
  } else {
    res.writeHead(answer.status, { 'content-type': answer.type ?? 'text/html' }).end(answer.body);
  }
}
