// One run of a comparison script (bench/lib/baselines.mjs) in a process of its own: argv[2] is
// { kind: 'terraform' | 'naive', url, count }. Prints JSON: what it changed and its own CPU time.
import { naiveScript, terraformStyle } from './lib/baselines.mjs';
import { seedOf, websites } from './lib/fixtures.mjs';

const { kind, url, count } = JSON.parse(process.argv[2]);
const declared = seedOf(websites(count));
const script = kind === 'terraform' ? terraformStyle : naiveScript;
const result = await script(url, declared);
const usage = process.resourceUsage();
process.stdout.write(
  JSON.stringify({
    ...result,
    cpuMs: (usage.userCPUTime + usage.systemCPUTime) / 1000,
    maxRssKb: usage.maxRSS,
  }),
);
