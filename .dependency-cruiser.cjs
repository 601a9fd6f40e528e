// The architecture rules of ARCHITECTURE.md, checked on every `npm run lint`. Stages meet only
// through their doors (index.ts), imports run down the pipeline, the plan does no I/O.
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'stage-door',
      comment: 'Import another stage only through its index.ts (its door), never one of its internal files.',
      severity: 'error',
      from: { path: '^src/([^/]+)/' },
      to: { path: '^src/[^/]+/', pathNot: ['^src/$1/', '^src/[^/]+/index\\.ts$'] },
    },
    {
      name: 'no-cycle',
      comment: 'No import cycles, type-only ones included: shared types get a file of their own.',
      severity: 'error',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'kernel-stands-alone',
      comment: 'src/model is the kernel every stage imports; it imports no stage.',
      severity: 'error',
      from: { path: '^src/model/' },
      to: { path: '^src/', pathNot: '^src/model/' },
    },
    {
      name: 'no-upstream',
      comment:
        'Imports run down the pipeline: manifest, service, plan and state never import apply, daemon, reconcile, cli or action.',
      severity: 'error',
      from: { path: '^src/(manifest|service|plan|state)/' },
      to: { path: '^src/(apply|daemon|reconcile|cli|action)/' },
    },
    {
      name: 'front-doors-on-top',
      comment:
        'The command line (cli/) and the GitHub Action (action/) are front doors: no stage imports them; the Action takes the pieces it shares with the command line through cli/index.ts.',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/(cli|action)/' },
      to: { path: '^src/(cli|action)/' },
    },
    {
      name: 'cli-stands-apart-from-action',
      comment: 'The command line never imports the Action (its toolkit is bundled into the Action only).',
      severity: 'error',
      from: { path: '^src/cli/' },
      to: { path: '^(src/action/|node_modules/@actions/)' },
    },
    {
      name: 'simulator-only-from-cli',
      comment: 'The simulator is a tool of the command line (and the tests), never part of the pipeline.',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/(cli|simulator)/' },
      to: { path: '^src/simulator/' },
    },
    {
      name: 'plan-is-pure',
      comment: 'The plan is a pure function: no files, no network.',
      severity: 'error',
      from: { path: '^src/plan/' },
      to: {
        path: [
          '^(node:)?(fs|fs/promises|http|https|http2|net|tls|dgram|child_process|worker_threads)$',
          '(^|/)undici(/|$)',
        ],
      },
    },
    {
      name: 'no-unresolvable',
      comment: 'An import the checker cannot resolve would escape every rule above.',
      severity: 'error',
      from: { path: '^src/' },
      to: { couldNotResolve: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    includeOnly: ['^src/', '^node_modules/', '^(node:)?[a-z_/]+$'],
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
    },
  },
};
