// Preloaded into the tool's process (`node --import`): at exit, writes the process's own resource
// usage to $BENCH_RUSAGE_FILE. CPU and peak RSS are then the tool's alone, whatever else runs.
import { writeFileSync } from 'node:fs';
import { getHeapSpaceStatistics } from 'node:v8';

const file = process.env.BENCH_RUSAGE_FILE;
if (file) {
  process.on('exit', () => {
    const usage = process.resourceUsage();
    writeFileSync(
      file,
      JSON.stringify({
        cpuMs: (usage.userCPUTime + usage.systemCPUTime) / 1000,
        maxRssKb: usage.maxRSS,
        uptimeMs: process.uptime() * 1000,
        // How far V8 grew its young generation (it counts in the peak RSS).
        youngGenerationKb:
          (getHeapSpaceStatistics().find((s) => s.space_name === 'new_space')?.space_size ?? 0) / 1024,
      }),
    );
  });
}
