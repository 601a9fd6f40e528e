import type { OptionCommand } from './options.js';

// Settings read only from the environment, described beside the options table for the docs
// (docs/reference/options.md is generated from both).

/** Settings read only from the environment: secrets never go on a command line, and the usual proxy variables. */
export const ENVIRONMENT_ONLY: ReadonlyArray<{
  env: string;
  help: string;
  commands: readonly OptionCommand[];
}> = [
  {
    env: 'WEBSITES_SYNC_API_KEY',
    help: 'the API key, unless --api-key-file is given (which wins); never accepted as a command-line value',
    commands: ['sync', 'export'],
  },
  {
    env: 'WEBSITES_SYNC_PREVIOUS_API_KEY',
    help: 'the API key used before a rotation, unless --previous-api-key-file is given (which wins); never accepted as a command-line value',
    commands: ['sync'],
  },
  {
    env: 'HTTPS_PROXY, HTTP_PROXY, NO_PROXY',
    help: 'the proxy for requests to the service (lower-case spellings too); a loopback service is always reached directly',
    commands: ['sync', 'export'],
  },
];
