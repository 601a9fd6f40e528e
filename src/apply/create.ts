import type { Logger } from 'pino';
import {
  type RemoteWebsite,
  SERVICE_CREATE_DEFAULTS,
  SETTING_FIELDS,
  sameValue,
  type WebsiteId,
  type WebsiteWrite,
} from '../model/index.js';
import type { CreateChange } from '../plan/index.js';
import { AuthError, lookupFailed, ServiceError, type WebsiteService } from '../service/index.js';
import { markProtected, type StateData } from '../state/index.js';
import { createdSettings, recordWrite } from './record.js';

// A store is the one write that is not idempotent: repeating it after a lost answer could create the
// website twice (or, since domains are unique, fail with "already taken" on our own website). So it is
// never repeated blindly: after an ambiguous failure the domain is looked up first.

/** Stores sent for one website at most when the service does not say (the transport's default). */
const STORE_ATTEMPTS = 6;

export interface CreateContext {
  service: WebsiteService;
  state: StateData;
  logger: Logger;
}

export type CreateResult = { result: 'created' | 'adopted'; id: WebsiteId };

/** Creates the website, or adopts it when it turns out to be on the account already. */
export async function createWebsite(change: CreateChange, context: CreateContext): Promise<CreateResult> {
  const created = await storeWebsite(change, context);
  // Protected from the moment it has an id: removing the entry before the next run must not expose it.
  if (change.protect) markProtected(context.state, { id: created.id, domain: change.domain });
  return created;
}

/** The full settings a create leaves the website with, minus the fields someone else owns. */
function fullSettings(change: CreateChange): WebsiteWrite {
  const full = createdSettings(change.send, SERVICE_CREATE_DEFAULTS);
  for (const field of change.ignoreFields ?? []) delete full[field];
  return full;
}

async function storeWebsite(change: CreateChange, context: CreateContext): Promise<CreateResult> {
  const { service, state, logger } = context;
  const full = fullSettings(change);
  for (let attempt = 1; ; attempt++) {
    try {
      const record = await service.createWebsite(change.written ?? change.domain, change.send);
      recordWrite(state, record, full, logger);
      return { result: 'created', id: record.id };
    } catch (error) {
      if (!(error instanceof ServiceError) || error instanceof AuthError) throw error;
      if (isDomainTaken(error)) return adoptTaken(change, context);
      // A clear refusal (validation, plan limit, not found...) will not change by trying again.
      if (!error.ambiguous) throw error;
      // A lookup that failed (or that the stop held back) leaves the store's own failure to report.
      const found = await service.findWebsite(change.domain).catch((lookup: unknown) => {
        throw lookupFailed(error, lookup, `${change.domain} may have been stored`);
      });
      if (found) {
        // A store the service answered with a body we cannot read (issue 19 §7) was done: say so once.
        if (error.status !== undefined && error.status < 300) {
          logger.warn(
            { domain: change.domain, err: error.message },
            'store answered strangely; the website was created',
          );
        }
        return settleFound(change, found, context);
      }
      if (attempt >= (service.storeAttempts ?? STORE_ATTEMPTS)) throw error;
      logger.warn(
        { domain: change.domain, attempt, err: error.message },
        'store failed and the website is not on the account; storing again',
      );
    }
  }
}

/** Found after a lost answer: normally our own store; if it holds other settings, they are set. */
function settleFound(
  change: CreateChange,
  found: RemoteWebsite,
  context: CreateContext,
): Promise<CreateResult> {
  const full = fullSettings(change);
  if (!showsWrite(found, full)) return adopt(change, found, context);
  recordWrite(context.state, found, full, context.logger);
  return Promise.resolve({ result: 'created', id: found.id });
}

/** "Already taken": ours (one the listing missed, or our own lost store) is adopted; another account's fails. */
async function adoptTaken(change: CreateChange, context: CreateContext): Promise<CreateResult> {
  const found = await context.service.findWebsite(change.domain);
  if (!found) {
    throw new ServiceError(
      `${change.domain} belongs to another account of the service; it cannot be added here`,
      { method: 'POST', path: '/api/v1/websites', status: 422 },
    );
  }
  return adopt(change, found, context);
}

/** Gives a website already on the account every declared setting, the write-only ones included. */
async function adopt(
  change: CreateChange,
  found: RemoteWebsite,
  context: CreateContext,
): Promise<CreateResult> {
  const full = fullSettings(change);
  // A website that was there before: what it holds of an undeclared write-only field nobody can see,
  // and websites-sync never sent, stays as it is (as for any listed website).
  for (const field of change.undeclared ?? []) if (found[field] === undefined) delete full[field];
  const record = await context.service.updateWebsite(found.id, full);
  recordWrite(context.state, record, full, context.logger);
  return { result: 'adopted', id: record.id };
}

function isDomainTaken(error: ServiceError): boolean {
  return error.status === 422 && (error.fieldErrors.domain ?? []).some((m) => /already been taken/i.test(m));
}

/** Whether every setting the record shows equals the one written (write-only ones cannot be checked). */
function showsWrite(record: RemoteWebsite, write: WebsiteWrite): boolean {
  return SETTING_FIELDS.every(
    (field) => !(field in write) || record[field] === undefined || sameValue(write[field], record[field]),
  );
}
