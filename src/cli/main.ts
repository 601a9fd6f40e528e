#!/usr/bin/env node
// Checked before anything else loads: on an older Node the modules below fail with errors that say
// nothing of the version (`Cannot read properties of undefined (reading 'bind')`).
const [major = 0, minor = 0] = process.versions.node.split('.').map(Number);
if (major < 22 || (major === 22 && minor < 22)) {
  process.stderr.write(
    `websites-sync needs Node.js 22.22 or newer (24 LTS recommended); this is Node.js ${process.version}\n`,
  );
  process.exit(1);
}
const { processIo } = await import('./io.js');
const { run } = await import('./run.js');

process.exitCode = await run(process.argv.slice(2), processIo());
