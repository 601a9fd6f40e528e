// Types of fixtures.mjs, for the tests that run the benchmark's harnesses (test/bench/).
import type { SeedWebsite } from '../../src/simulator/index.js';

export interface BenchWebsite {
  domain: string;
  privacy?: number;
  email?: boolean;
  exclude_bots?: boolean;
  exclude_params?: string[];
  exclude_ips?: string[];
}

export const API_KEY: string;
export const SECRET: string;
export const SITE_PASSWORD: string;
export const PASSWORD_ENV: Record<string, string>;
export function website(i: number): BenchWebsite;
export function websites(count: number, flip?: (i: number) => boolean): BenchWebsite[];
export function seedOf(sites: readonly BenchWebsite[]): SeedWebsite[];
export function manifestOf(sites: readonly BenchWebsite[]): string;
export function writeConvergedState(
  path: string,
  baseUrl: string,
  sites: readonly BenchWebsite[],
): Promise<void>;
