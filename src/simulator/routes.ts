// The website endpoints: route matching and the controller actions, answering plain data that
// server.ts writes out. Shapes follow the service's controller and resources.

import type { EndpointFault } from './faults.js';
import { accountAnswer, statsAnswer } from './guard-routes.js';
import { type ListShape, parseListQuery, renderList, renderStuckPage } from './listing.js';
import type { WebsiteStore, WriteResult } from './store.js';
import type { TrafficStore } from './traffic.js';
import { applyInputMiddleware, type FieldErrors, type FormInput, summarizeErrors } from './validation.js';

export type RouteName = 'list' | 'store' | 'show' | 'update' | 'destroy' | 'account' | 'stats';

export type RouteMatch =
  | { kind: 'route'; name: RouteName; id: string | undefined }
  | { kind: 'not-found' }
  | { kind: 'method-not-allowed'; allowed: string[] };

export interface ActionResult {
  status: number;
  json: unknown;
  /** Set when the action changed the account (a reset-after-commit fault applies only then). */
  committed: boolean;
  /** Laravel validation errors, which a non-JSON client gets as a redirect instead. */
  fieldErrors?: FieldErrors;
  /** Headers of this answer besides the usual ones (a 503's `Retry-After`). */
  headers?: Record<string, string>;
}

export interface ActionContext {
  store: WebsiteStore;
  listShape: ListShape;
  defaultPerPage: number;
  /** The list URL without query, as the paginator links it. */
  listPath: string;
  /** 500: the variant whose update of a missing id fails inside the controller. */
  missingUpdateStatus?: 404 | 500;
  /** Set by a `stuck-page` fault: a list request gets that many pages' worth of made-up websites. */
  stuckPages?: number | undefined;
  /** The websites' visitors, for `/stats/{id}`. */
  traffic: TrafficStore;
  /** How `/account` and `/stats/{id}` misbehave, when they do. */
  accountFault?: EndpointFault | undefined;
  statsFault?: EndpointFault | undefined;
}

const COLLECTION = /^\/api\/v1\/websites\/?$/;
const MEMBER = /^\/api\/v1\/websites\/([^/]+)\/?$/;
const ACCOUNT = /^\/api\/v1\/account\/?$/;
const STATS = /^\/api\/v1\/stats\/([^/]+)\/?$/;

/** `account` (index only) and `stats` (show only): read-only resources. */
function matchReadOnly(method: string, path: string): RouteMatch | undefined {
  const stats = STATS.exec(path);
  const name = ACCOUNT.test(path) ? 'account' : stats ? 'stats' : undefined;
  if (name === undefined) return undefined;
  if (method !== 'GET') return { kind: 'method-not-allowed', allowed: ['GET', 'HEAD'] };
  return { kind: 'route', name, id: stats ? decodeURIComponent(stats[1] ?? '') : undefined };
}

export function matchRoute(method: string, path: string): RouteMatch {
  const readOnly = matchReadOnly(method, path);
  if (readOnly) return readOnly;
  if (COLLECTION.test(path)) {
    if (method === 'GET') return { kind: 'route', name: 'list', id: undefined };
    if (method === 'POST') return { kind: 'route', name: 'store', id: undefined };
    return { kind: 'method-not-allowed', allowed: ['GET', 'HEAD', 'POST'] };
  }
  const member = MEMBER.exec(path);
  if (member) {
    // Any id reaches the controller, which finds nothing for one the account does not hold.
    const id = decodeURIComponent(member[1] ?? '');
    if (method === 'GET') return { kind: 'route', name: 'show', id };
    if (method === 'PUT' || method === 'PATCH') return { kind: 'route', name: 'update', id };
    if (method === 'DELETE') return { kind: 'route', name: 'destroy', id };
    return { kind: 'method-not-allowed', allowed: ['GET', 'HEAD', 'PUT', 'PATCH', 'DELETE'] };
  }
  return { kind: 'not-found' };
}

const NOT_FOUND: ActionResult = {
  status: 404,
  json: { message: 'Resource not found.', status: 404 },
  committed: false,
};

function invalid(errors: FieldErrors): ActionResult {
  return {
    status: 422,
    json: { message: summarizeErrors(errors), errors },
    committed: false,
    fieldErrors: errors,
  };
}

/** Fields whose request value the service's store and update answers echo as sent (strings). */
const ECHOED = ['privacy', 'email', 'exclude_bots'] as const;

function fromWrite(
  store: WebsiteStore,
  result: WriteResult,
  status: number,
  withStatus: boolean,
  input: FormInput,
): ActionResult {
  if (result.kind === 'invalid') return invalid(result.errors);
  if (result.kind === 'not-found') return NOT_FOUND;
  // The model keeps the request's attributes as they came (strings after the middleware) until it is
  // read again: `"privacy":"2"` here, where list and show say 2.
  const data: Record<string, unknown> = { ...store.record(result.website) };
  for (const field of ECHOED) if (field in input) data[field] = input[field] ?? null;
  return { status, json: withStatus ? { data, status: 200 } : { data }, committed: true };
}

export function runAction(
  context: ActionContext,
  route: { name: RouteName; id: string | undefined },
  query: Record<string, string>,
  body: Record<string, string> | undefined,
): ActionResult {
  const { store } = context;
  const input = applyInputMiddleware(body ?? {});
  const id = store.idOf(route.id ?? '');
  switch (route.name) {
    case 'list': {
      const parsed = parseListQuery(applyInputMiddleware(query), context.defaultPerPage);
      if (context.stuckPages !== undefined) {
        return {
          status: 200,
          json: renderStuckPage(parsed, context.listPath, context.stuckPages),
          committed: false,
        };
      }
      const records = store.query(parsed);
      return {
        status: 200,
        json: renderList(records, parsed, context.listPath, context.listShape, (w) => store.record(w)),
        committed: false,
      };
    }
    case 'store':
      return fromWrite(store, store.store(input), 201, false, input);
    case 'show': {
      const website = store.get(id);
      return website
        ? { status: 200, json: { data: store.record(website), status: 200 }, committed: false }
        : NOT_FOUND;
    }
    case 'update': {
      const result = store.update(id, input);
      if (result.kind === 'not-found' && context.missingUpdateStatus === 500) {
        return { status: 500, json: { message: 'Server Error' }, committed: false };
      }
      return fromWrite(store, result, 200, true, input);
    }
    case 'account':
      return { ...accountAnswer({ store, fault: context.accountFault }), committed: false };
    case 'stats': {
      const path = context.listPath.replace(/websites$/, `stats/${route.id ?? ''}`);
      const guard = { store, traffic: context.traffic, listShape: context.listShape, path };
      const answer = statsAnswer(
        { ...guard, defaultPerPage: context.defaultPerPage, fault: context.statsFault },
        route.id ?? '',
        query,
      );
      return { ...answer, committed: false };
    }
    case 'destroy': {
      if (!store.remove(id)) return NOT_FOUND;
      context.traffic.forget(id);
      return {
        status: 200,
        json: { id: store.shownId(id), object: 'website', deleted: true, status: 200 },
        committed: true,
      };
    }
  }
}
