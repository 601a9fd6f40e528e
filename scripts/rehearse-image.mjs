#!/usr/bin/env node
// Rehearses `docker build .` and `docker compose up` of examples/docker-compose.yml without a Docker
// engine, so that CI proves on every run that the image builds and starts:
//   1. the build context, computed from .dockerignore as Docker does (@balena/dockerignore is a port of
//      Docker's own matcher: `!` exceptions, `**`, a parent's exclusion; directories are pruned as
//      Docker's context walker prunes them);
//   2. every COPY/ADD source of every stage exists in that context (or in an earlier stage);
//   3. (unless --check-only) every stage's RUN commands in a copy of the context laid out as the image
//      has it (WORKDIR, ENV, ARG, COPY), on this machine's Node standing in for the base image's;
//   4. the runtime stage started as compose starts it: ENTRYPOINT + the service's command as the image's
//      USER, with the image's ENV and the service's environment, the named volume writable, the
//      HEALTHCHECK command itself asked until it passes, /readyz, then STOPSIGNAL and a clean exit.
// What the rehearsal changes, and only that: absolute paths the Dockerfile declares (WORKDIR, VOLUME,
// absolute COPY destinations, directories of absolute ENV values, `mkdir` targets) live under a
// temporary root, and are rewritten in commands and ENV; npm runs offline from a hard-linked copy of
// this machine's npm cache; compose service names resolve to 127.0.0.1 in one private network
// namespace (unshare --net) that holds every service, so the image's ports are its own.
// Needs root (the image's build runs as root; the service runs as the image's numeric USER via setpriv).
//   node scripts/rehearse-image.mjs [--context DIR] [--compose FILE] [--check-only] [--keep]
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import * as fs from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import ignore from '@balena/dockerignore';
import { DockerfileParser } from 'dockerfile-ast';
import picomatch from 'picomatch';
import { parse as parseYaml } from 'yaml';

const repo = path.resolve(import.meta.dirname, '..');
const { values: opts } = parseArgs({
  options: {
    context: { type: 'string', default: repo },
    compose: { type: 'string' },
    'check-only': { type: 'boolean', default: false },
    keep: { type: 'boolean', default: false },
  },
});
const contextDir = path.resolve(opts.context);
const composeFile = path.resolve(opts.compose ?? path.join(contextDir, 'examples/docker-compose.yml'));

class RehearsalError extends Error {}
const fail = (message) => {
  throw new RehearsalError(message);
};
const say = (message) => console.log(`rehearse-image: ${message}`);

// ---- 1. the build context -----------------------------------------------------------------------------
function readIgnore(dir) {
  const file = path.join(dir, '.dockerignore');
  const lines = fs.existsSync(file) ? fs.readFileSync(file, 'utf8').split(/\r?\n/) : [];
  const patterns = lines.map((l) => l.trim()).filter((l) => l !== '' && !l.startsWith('#'));
  const exceptions = patterns
    .filter((p) => p.startsWith('!'))
    .map((p) => path.posix.normalize(p.slice(1).trim()).replace(/^\/+/, ''));
  return { matcher: ignore().add(patterns), exceptions };
}

/** The relative paths (files and directories) `docker build` sends, as Docker's context walker finds them. */
function buildContext(dir) {
  const { matcher, exceptions } = readIgnore(dir);
  const context = new Set();
  const walk = (rel) => {
    for (const entry of fs.readdirSync(path.join(dir, rel), { withFileTypes: true })) {
      const p = rel ? `${rel}/${entry.name}` : entry.name;
      if (matcher.ignores(p)) {
        // Docker walks into an excluded directory only when an exception pattern starts with its path.
        if (entry.isDirectory() && exceptions.some((e) => `${e}/`.startsWith(`${p}/`))) walk(p);
        continue;
      }
      context.add(p);
      if (entry.isDirectory()) walk(p);
    }
  };
  walk('');
  // A file kept inside an excluded directory brings its parent directories with it.
  for (const p of [...context]) {
    for (let d = path.posix.dirname(p); d !== '.'; d = path.posix.dirname(d)) context.add(d);
  }
  return context;
}

// ---- 2. the Dockerfile, stage by stage ---------------------------------------------------------------
function expandArgs(text, vars) {
  return text.replace(/\$\{(\w+)(?::?-([^}]*))?\}|\$(\w+)/g, (_, a, def, b) => vars[a ?? b] ?? def ?? '');
}

/** One entry per FROM: its name, base image and instructions, with the global ARGs expanded into FROM. */
function readStages(dockerfileText) {
  const dockerfile = DockerfileParser.parse(dockerfileText);
  const globals = {};
  for (const arg of dockerfile.getInitialARGs()) {
    const prop = arg.getProperty();
    if (prop) globals[prop.getName()] = prop.getValue() ?? '';
  }
  const stages = [];
  for (const instruction of dockerfile.getInstructions()) {
    const keyword = instruction.getKeyword();
    if (keyword === 'FROM') {
      const [image, as, name] = instruction.getArguments().map((a) => a.getValue());
      const stageName = as?.toUpperCase() === 'AS' ? name : String(stages.length);
      stages.push({ name: stageName, base: expandArgs(image, globals), globals, instructions: [] });
    } else if (stages.length > 0) {
      stages.at(-1).instructions.push(instruction);
    }
  }
  if (stages.length === 0) fail('Dockerfile: no FROM');
  return stages;
}

const line = (instruction) => `Dockerfile:${instruction.getRange().start.line + 1}`;
const words = (instruction) => {
  const json = instruction.getJSONStrings?.() ?? [];
  return json.length > 0
    ? json.map((s) => s.getJSONValue())
    : instruction.getArguments().map((a) => a.getValue());
};
const flag = (instruction, name) =>
  instruction
    .getFlags?.()
    .find((f) => f.getName() === name)
    ?.getValue();
const contextPath = (source) =>
  path.posix
    .normalize(source)
    .replace(/^(\.\/|\/)+/, '')
    .replace(/\/$/, '') || '.';

/** Every COPY/ADD source, checked against the context (or an earlier stage). Returns the problems found. */
function checkCopies(stages, context) {
  const problems = [];
  stages.forEach((stage, index) => {
    for (const instruction of stage.instructions) {
      const keyword = instruction.getKeyword();
      if (keyword !== 'COPY' && keyword !== 'ADD') continue;
      const from = flag(instruction, 'from');
      const sources = words(instruction).slice(0, -1);
      if (from !== undefined) {
        if (!stages.slice(0, index).some((s) => s.name === from)) {
          problems.push(`${line(instruction)}: ${keyword} --from=${from}: no earlier stage of that name`);
        }
        continue;
      }
      for (const source of sources) {
        if (/^[a-z]+:\/\//i.test(source)) {
          problems.push(
            `${line(instruction)}: ${keyword} ${source}: the rehearsal copies from the context only`,
          );
          continue;
        }
        const rel = contextPath(source);
        const found = /[*?[]/.test(rel)
          ? [...context].some(picomatch(rel, { dot: true }))
          : rel === '.' || context.has(rel);
        if (!found) {
          const why = fs.existsSync(path.join(contextDir, rel))
            ? 'left out of the build context by .dockerignore'
            : 'not in the build context (no such file)';
          problems.push(`${line(instruction)}: ${keyword} ${source}: ${why}`);
        }
      }
    }
  });
  return problems;
}

// ---- 3. the build, in a temporary root per stage ----------------------------------------------------
/** The absolute paths the image itself declares: they live under the rehearsal's root. */
function imagePaths(stages) {
  const found = new Set();
  for (const stage of stages) {
    for (const instruction of stage.instructions) {
      const keyword = instruction.getKeyword();
      const args = words(instruction);
      if (keyword === 'WORKDIR' || keyword === 'VOLUME') for (const a of args) found.add(a);
      if ((keyword === 'COPY' || keyword === 'ADD') && args.at(-1).startsWith('/')) found.add(args.at(-1));
      if (keyword === 'ENV') {
        for (const p of instruction.getProperties()) {
          const value = p.getValue() ?? '';
          if (value.startsWith('/')) found.add(path.posix.dirname(value));
        }
      }
      if (keyword === 'RUN') {
        for (const m of (instruction.getRawArgumentsContent() ?? '').matchAll(
          /mkdir\s+(?:-\w+\s+)*((?:\/[^\s;&|]+\s*)+)/g,
        )) {
          for (const a of m[1].trim().split(/\s+/)) found.add(a);
        }
      }
    }
  }
  return [...found]
    .map((p) => p.replace(/\/+$/, ''))
    .filter((p) => p !== '' && p !== '/')
    .sort((a, b) => b.length - a.length);
}

function rewriter(root, declared) {
  const alternatives = declared.map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|');
  const pattern = new RegExp(`(^|[\\s"'=:,\\[])(${alternatives})(?=$|[/\\s"',;&|\\]])`, 'g');
  return (text) =>
    declared.length === 0 ? text : text.replace(pattern, (_, before, p) => `${before}${root}${p}`);
}

function run(command, args, options) {
  const result = spawnSync(command, args, { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, ...options });
  if (result.status !== 0) {
    fail(
      `${options.what ?? command} failed (exit ${result.status ?? result.signal}):\n${result.stdout ?? ''}${result.stderr ?? ''}${result.error ?? ''}`,
    );
  }
  return result;
}

function copyFromContext(source, dest, destIsDir, context) {
  const rel = contextPath(source);
  const matches = /[*?[]/.test(rel) ? [...context].filter(picomatch(rel, { dot: true })) : [rel];
  for (const match of matches) {
    const from = path.join(contextDir, match);
    if (!fs.statSync(from).isDirectory()) {
      const to = destIsDir ? path.join(dest, path.basename(match)) : dest;
      fs.mkdirSync(path.dirname(to), { recursive: true });
      fs.copyFileSync(from, to);
      continue;
    }
    // A directory's contents, as far as the context holds them.
    for (const p of context) {
      if (match !== '.' && !p.startsWith(`${match}/`)) continue;
      const to = path.join(dest, match === '.' ? p : p.slice(match.length + 1));
      if (fs.statSync(path.join(contextDir, p)).isDirectory()) fs.mkdirSync(to, { recursive: true });
      else {
        fs.mkdirSync(path.dirname(to), { recursive: true });
        fs.copyFileSync(path.join(contextDir, p), to);
      }
    }
  }
}

/** The base image, rehearsed: this machine's Node and npm at /usr/local/bin, as node:*-slim has them. */
function installBase(stage, root, npmPackage) {
  const m = /^node:(\d+)(?:[.-]|$)/.exec(stage.base);
  if (!m) fail(`FROM ${stage.base}: the rehearsal stands in only for node:<major>-* images`);
  if (Number(process.versions.node.split('.')[0]) !== Number(m[1])) {
    fail(`FROM ${stage.base}: run the rehearsal on Node ${m[1]} (this is ${process.version})`);
  }
  const bin = path.join(root, 'usr/local/bin');
  fs.mkdirSync(bin, { recursive: true });
  try {
    fs.linkSync(process.execPath, path.join(bin, 'node'));
  } catch {
    fs.copyFileSync(process.execPath, path.join(bin, 'node'));
    fs.chmodSync(path.join(bin, 'node'), 0o755);
  }
  fs.mkdirSync(path.join(root, 'usr/local/lib/node_modules'), { recursive: true });
  fs.symlinkSync(npmPackage, path.join(root, 'usr/local/lib/node_modules/npm'));
  fs.symlinkSync('../lib/node_modules/npm/bin/npm-cli.js', path.join(bin, 'npm'));
}

function buildStage(stage, ctx) {
  const root = path.join(ctx.tmp, `stage-${stage.name}`);
  fs.mkdirSync(root, { mode: 0o755 });
  installBase(stage, root, ctx.npmPackage);
  const rewrite = rewriter(root, ctx.declared);
  const image = {
    root,
    workdir: '/',
    env: { PATH: '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' },
    args: {},
    user: '0:0',
  };
  for (const instruction of stage.instructions) {
    const keyword = instruction.getKeyword();
    const args = words(instruction);
    const cwd = path.join(root, image.workdir);
    if (keyword === 'WORKDIR') {
      image.workdir = path.posix.resolve(image.workdir, args[0]);
      fs.mkdirSync(path.join(root, image.workdir), { recursive: true });
    } else if (keyword === 'ENV' || keyword === 'ARG') {
      for (const p of instruction.getProperties?.() ?? [instruction.getProperty()]) {
        const value = p.getValue() ?? stage.globals[p.getName()] ?? '';
        (keyword === 'ENV' ? image.env : image.args)[p.getName()] = expandArgs(value, {
          ...image.args,
          ...image.env,
        });
      }
    } else if (keyword === 'COPY' || keyword === 'ADD') {
      const dest = path.posix.resolve(image.workdir, args.at(-1));
      const destIsDir = args.at(-1).endsWith('/') || args.length > 2;
      const from = flag(instruction, 'from');
      if (from === undefined) {
        for (const source of args.slice(0, -1))
          copyFromContext(source, path.join(root, dest), destIsDir, ctx.context);
      } else {
        const source = path.join(ctx.roots[from], args[0]);
        if (!fs.existsSync(source))
          fail(`${line(instruction)}: COPY --from=${from} ${args[0]}: the stage has no such path`);
        fs.cpSync(source, path.join(root, dest), { recursive: true });
      }
    } else if (keyword === 'RUN') {
      const command = rewrite(instruction.getRawArgumentsContent() ?? '');
      const env = {
        ...Object.fromEntries(
          Object.entries({ ...image.args, ...image.env }).map(([k, v]) => [k, rewrite(v)]),
        ),
        PATH: `${root}/usr/local/bin:${image.env.PATH}`,
        HOME: path.join(root, 'root'),
        npm_config_cache: ctx.npmCache,
        npm_config_offline: 'true',
        npm_config_update_notifier: 'false',
      };
      say(`${line(instruction)}: RUN ${words(instruction).join(' ')}`);
      run('/bin/sh', ['-c', command], { cwd, env, what: `${line(instruction)}: RUN` });
    } else if (keyword === 'USER') {
      if (!/^\d+(:\d+)?$/.test(args[0]))
        fail(
          `${line(instruction)}: USER ${args[0]}: give a numeric uid:gid (Kubernetes' runAsNonRoot can verify only that)`,
        );
      image.user = args[0].includes(':') ? args[0] : `${args[0]}:${args[0]}`;
    } else if (keyword === 'ENTRYPOINT' || keyword === 'CMD') {
      image[keyword.toLowerCase()] = words(instruction);
    } else if (keyword === 'HEALTHCHECK') {
      const raw = instruction.getRawArgumentsContent() ?? '';
      image.healthcheck = JSON.parse(raw.slice(raw.indexOf('CMD') + 3).trim());
    } else if (keyword === 'STOPSIGNAL') {
      image.stopSignal = args[0];
    } else if (!['VOLUME', 'EXPOSE', 'LABEL'].includes(keyword)) {
      fail(`${line(instruction)}: the rehearsal does not know ${keyword}`);
    }
  }
  return { ...image, rewrite };
}

/** A second Node (the `node` npm package's download) anywhere in a stage, and dev dependencies at run time. */
function checkStage(stage, image, isRuntime) {
  const base = path.join(image.root, 'usr/local/bin/node');
  const walk = (dir) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(p);
      else if (entry.name === 'node' && p !== base && fs.existsSync(p)) {
        fail(
          `stage ${stage.name}: ${p.slice(image.root.length)} is a second Node (an install script downloaded it)`,
        );
      }
    }
  };
  walk(image.root);
  if (!isRuntime) return;
  const pkg = JSON.parse(fs.readFileSync(path.join(contextDir, 'package.json'), 'utf8'));
  const modules = path.join(image.root, image.workdir, 'node_modules');
  for (const dev of Object.keys(pkg.devDependencies ?? {})) {
    if (fs.existsSync(path.join(modules, dev))) fail(`runtime stage: dev dependency ${dev} is installed`);
  }
}

// ---- 4. the containers of the compose example ------------------------------------------------------
function composeServices(file) {
  const compose = parseYaml(fs.readFileSync(file, 'utf8'));
  const services = Object.entries(compose.services ?? {}).map(([name, s]) => ({ name, ...s }));
  for (const s of services) {
    const build = typeof s.build === 'string' ? s.build : s.build?.context;
    if (build === undefined || path.resolve(path.dirname(file), build) !== contextDir) {
      fail(
        `${path.basename(file)}: service ${s.name} is not built from this Dockerfile; the rehearsal runs only this image`,
      );
    }
  }
  // Started in dependency order, as compose does.
  const ordered = [];
  const visit = (s) => {
    if (ordered.includes(s)) return;
    for (const dep of Object.keys(dependsOn(s))) visit(services.find((x) => x.name === dep));
    ordered.push(s);
  };
  services.forEach(visit);
  return ordered;
}
const dependsOn = (s) =>
  Array.isArray(s.depends_on)
    ? Object.fromEntries(s.depends_on.map((d) => [d, { condition: 'service_started' }]))
    : (s.depends_on ?? {});

function containerRoot(image, service, ctx) {
  const root = path.join(ctx.tmp, `container-${service.name}`);
  // Hard links: the containers share the image's files (never written at run time) but not its directories.
  run('cp', ['-al', image.root, root], { what: 'copying the image' });
  const home = path.join(root, 'home/node');
  fs.mkdirSync(home, { recursive: true });
  const [uid, gid] = image.user.split(':').map(Number);
  fs.chownSync(home, uid, gid);
  const rewrite = rewriter(root, ctx.declared);
  for (const volume of service.volumes ?? []) {
    const [source, target] = String(volume).split(':');
    if (!/^[./~]/.test(source)) continue; // a named volume starts as the image's directory, with its owner
    // A bind mount (read-only here: root owns the copy, the service runs as the image's user).
    const dest = path.join(root, target);
    fs.rmSync(dest, { recursive: true, force: true });
    fs.cpSync(path.resolve(path.dirname(ctx.composeFile), source), dest, { recursive: true });
  }
  return { root, rewrite, home };
}

function serviceEnv(image, service, container, others) {
  const env = Object.fromEntries(Object.entries(image.env).map(([k, v]) => [k, container.rewrite(v)]));
  const given = Array.isArray(service.environment)
    ? Object.fromEntries(service.environment.map((e) => e.split(/=(.*)/s).slice(0, 2)))
    : (service.environment ?? {});
  for (const [k, v] of Object.entries(given)) {
    // Compose resolves service names on its network; here every service shares one loopback.
    env[k] = others.reduce((text, name) => text.replaceAll(`//${name}:`, '//127.0.0.1:'), String(v));
  }
  env.PATH = `${container.root}/usr/local/bin:${image.env.PATH}`;
  env.HOME = container.home;
  return env;
}

async function startNetwork() {
  const holder = spawn(
    'unshare',
    ['--net', '--', 'sh', '-c', 'ip link set lo up && echo up && exec sleep 3600'],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  // Its first line, or its end when unshare or ip is refused (then there is no line to wait for).
  const chunk = await Promise.race([
    once(holder.stdout, 'data').then(([data]) => String(data)),
    once(holder, 'exit').then(() => ''),
    once(holder, 'error').then(() => ''),
  ]);
  if (!chunk.includes('up')) fail('could not bring up a private network namespace (unshare --net, ip link)');
  return { holder, enter: (argv) => ['nsenter', `--net=/proc/${holder.pid}/ns/net`, '--', ...argv] };
}

function asUser(user, argv) {
  const [uid, gid] = user.split(':');
  return ['setpriv', `--reuid=${uid}`, `--regid=${gid}`, '--clear-groups', ...argv];
}

function startService(image, service, container, env, net) {
  const entrypoint = (service.entrypoint ?? image.entrypoint ?? []).map(container.rewrite);
  const argv = net.enter(asUser(image.user, [...entrypoint, ...(service.command ?? image.cmd ?? [])]));
  say(`${service.name}: ${[...entrypoint, ...(service.command ?? [])].join(' ')} (as ${image.user})`);
  const child = spawn(argv[0], argv.slice(1), {
    cwd: path.join(container.root, image.workdir),
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.output = '';
  child.stdout.on('data', (d) => (child.output += d));
  child.stderr.on('data', (d) => (child.output += d));
  child.exited = once(child, 'exit');
  return child;
}

/** Asks a health command as Docker does: every interval until it passes, the service exits, or time runs out. */
async function waitHealthy(what, test, env, net, image, child, seconds) {
  const deadline = Date.now() + seconds * 1000;
  for (;;) {
    const [cmd, ...args] = net.enter(asUser(image.user, test));
    const result = spawnSync(cmd, args, { env, encoding: 'utf8', timeout: 5000 });
    if (result.status === 0) return;
    if (child.exitCode !== null || Date.now() > deadline) {
      fail(
        `${what} never passed (exit ${result.status}${result.stderr ? `: ${result.stderr.trim()}` : ''}); the service said:\n${child.output}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 250)); // Docker's --interval, shortened
  }
}

const healthTest = (service, image) => {
  if (service.healthcheck?.disable) return undefined;
  const test = service.healthcheck?.test;
  if (test === undefined) return image.healthcheck;
  if (test[0] === 'CMD') return test.slice(1);
  if (test[0] === 'CMD-SHELL') return ['/bin/sh', '-c', test[1]];
  return fail(`service ${service.name}: healthcheck test ${JSON.stringify(test)} is not CMD or CMD-SHELL`);
};

async function composeUp(image, ctx) {
  const services = composeServices(ctx.composeFile);
  const net = await startNetwork();
  const started = [];
  try {
    for (const service of services) {
      for (const [dep, { condition }] of Object.entries(dependsOn(service))) {
        if (condition !== 'service_healthy')
          fail(
            `service ${service.name} starts before ${dep} is healthy: use depends_on: { ${dep}: { condition: service_healthy } }`,
          );
      }
      const container = containerRoot(image, service, ctx);
      const env = serviceEnv(
        image,
        service,
        container,
        services.map((s) => s.name),
      );
      const child = startService(image, service, container, env, net);
      started.push({ service, child, container, env });
      const test = healthTest(service, image);
      if (test)
        await waitHealthy(`${service.name}: healthcheck ${test.join(' ')}`, test, env, net, image, child, 20);
      say(`${service.name}: ${test ? 'healthy' : 'started (no healthcheck)'}`);
    }
    const daemon = started.find((s) => (s.service.command ?? []).every((a) => a !== 'simulator'));
    const port = daemon.env.WEBSITES_SYNC_LISTEN.split(':').at(-1);
    const readyz = [
      'node',
      '-e',
      `fetch('http://127.0.0.1:${port}/readyz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))`,
    ];
    await waitHealthy(
      `${daemon.service.name}: /readyz (the first reconcile)`,
      readyz,
      daemon.env,
      net,
      image,
      daemon.child,
      30,
    );
    say(`${daemon.service.name}: ready (reconciled against the simulator)`);
    await stopService(daemon, image);
    checkVolume(daemon, image);
  } finally {
    for (const { child } of started) if (child.exitCode === null) child.kill('SIGKILL');
    net.holder.kill('SIGKILL');
  }
}

async function stopService({ service, child }, image) {
  const grace = Number.parseInt(String(service.stop_grace_period ?? '10s'), 10) * 1000;
  child.kill(image.stopSignal ?? 'SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), grace);
  const [code, signal] = await child.exited;
  clearTimeout(timer);
  if (code !== 0)
    fail(`${service.name}: ${image.stopSignal} ended it with ${code ?? signal}, not 0:\n${child.output}`);
  say(`${service.name}: stopped by ${image.stopSignal ?? 'SIGTERM'} (exit 0)`);
}

function checkVolume({ service, env }, image) {
  const stateFile = env.WEBSITES_SYNC_STATE_FILE;
  if (!stateFile || !fs.existsSync(stateFile))
    fail(`${service.name}: no state file at ${stateFile} on the volume`);
  const { uid } = fs.statSync(stateFile);
  if (`${uid}` !== image.user.split(':')[0])
    fail(`${service.name}: the state file is owned by uid ${uid}, not the image's user`);
  say(`${service.name}: state written on the volume by uid ${uid}`);
}

// ---- the rehearsal ----------------------------------------------------------------------------------
async function main() {
  const context = buildContext(contextDir);
  const stages = readStages(fs.readFileSync(path.join(contextDir, 'Dockerfile'), 'utf8'));
  const problems = checkCopies(stages, context);
  if (problems.length > 0) fail(problems.join('\n'));
  say(`the build context holds ${context.size} paths, and every COPY source of ${stages.length} stages`);
  if (opts['check-only']) return;
  if (process.getuid?.() !== 0)
    fail('the build and start rehearsal needs root (setpriv to the image user); --check-only does not');
  const tmp = fs.mkdtempSync(path.join(tmpdir(), 'websites-sync-image-'));
  fs.chmodSync(tmp, 0o755);
  try {
    const hostCache = run('npm', ['config', 'get', 'cache'], {}).stdout.trim();
    const npmCache = path.join(tmp, 'npm-cache');
    run('cp', ['-al', hostCache, npmCache], { what: 'copying the npm cache' });
    // npm's own package (…/npm/bin/npm-cli.js is what `npm` on PATH links to).
    const npmPackage = path.resolve(
      fs.realpathSync(run('sh', ['-c', 'command -v npm'], {}).stdout.trim()),
      '../..',
    );
    const ctx = { tmp, context, declared: imagePaths(stages), roots: {}, npmCache, npmPackage, composeFile };
    say(`image paths under the rehearsal's root: ${ctx.declared.join(' ')}`);
    let image;
    stages.forEach((stage, index) => {
      image = buildStage(stage, ctx);
      ctx.roots[stage.name] = image.root;
      checkStage(stage, image, index === stages.length - 1);
    });
    say('built; no second Node in any stage; no dev dependency in the runtime stage');
    await composeUp(image, ctx);
    say(`ok: ${path.relative(repo, composeFile)} runs on the image`);
  } finally {
    if (opts.keep) say(`kept ${tmp}`);
    else fs.rmSync(tmp, { recursive: true, force: true });
  }
}

main().catch((error) => {
  console.error(error instanceof RehearsalError ? `rehearse-image: ${error.message}` : error);
  process.exit(1);
});
