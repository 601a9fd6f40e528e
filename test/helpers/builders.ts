import {
  type DesiredState,
  type DesiredWebsite,
  type RemoteWebsite,
  SERVICE_CREATE_DEFAULTS,
} from '../../src/model/index.js';

export function desiredSite(domain: string, settings: Partial<DesiredWebsite> = {}): DesiredWebsite {
  return {
    ...SERVICE_CREATE_DEFAULTS,
    exclude_params: [],
    exclude_ips: [],
    domain,
    location: { file: 'websites.yaml', line: 1, column: 1 },
    ...settings,
  };
}

export function desiredState(websites: DesiredWebsite[], options: Partial<DesiredState> = {}): DesiredState {
  return {
    file: 'websites.yaml',
    prune: false,
    ignore: [],
    websites,
    websitesEmpty: websites.length === 0,
    ...options,
  };
}

/** A record as the real service returns it: no exclude_params, password as a boolean. */
export function remoteSite(id: number, domain: string, settings: Partial<RemoteWebsite> = {}): RemoteWebsite {
  return {
    id,
    domain,
    privacy: 1,
    email: false,
    exclude_bots: true,
    exclude_ips: [],
    hasPassword: false,
    ...settings,
  };
}
