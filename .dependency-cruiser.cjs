/**
 * The repository's layering, checked by `npm run lint` (dependency-cruiser, pinned in package.json).
 * Each rule is one the README's "Map of the repo" states: data flows platform adapter -> client ->
 * transport, the client holds all domain logic behind its two entry points, and the sandbox implements
 * the spec on its own.
 */
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-cycles',
      comment:
        'A cycle (type-only imports included) means two modules hold one thing: move the shared part to a leaf.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'adapters-use-client-entry-points',
      comment:
        'A platform adapter (Zapier, n8n, Make tests) reaches the client only through @evf/client or @evf/client/node, never its internals: what the adapters need is public, and internals may move.',
      severity: 'error',
      from: { path: '^(packages/(zapier|n8n|make)|bench|scripts)/' },
      to: { path: '^packages/client/', pathNot: '^packages/client/src/(index|node/index)\\.ts$' },
    },
    {
      name: 'sandbox-stands-alone',
      comment:
        'The sandbox implements the spec on its own, so a wrong rule in the client cannot pass the conformance suites.',
      severity: 'error',
      from: { path: '^packages/sandbox/src/' },
      to: { path: '^packages/(client|zapier|n8n|make)/' },
    },
    {
      name: 'client-knows-no-platform',
      comment: 'The client is the layer below every platform and the sandbox: it imports none of them.',
      severity: 'error',
      from: { path: '^packages/client/src/' },
      to: { path: '^(packages/(sandbox|zapier|n8n|make)|shared)/' },
    },
    {
      name: 'client-core-stays-platform-neutral',
      comment:
        "@evf/client is bundled into n8n's node, whose scanner refuses timers and process: only the @evf/client/node entry (src/node/) may use Node's defaults, and nothing else in the client imports it.",
      severity: 'error',
      from: { path: '^packages/client/src/', pathNot: '^packages/client/src/node/' },
      to: { path: '^packages/client/src/node/' },
    },
    {
      name: 'n8n-operation-stays-in-its-folder',
      comment:
        "One n8n operation's folder never imports another's: code two operations share lives in helpers/ or transport/ (as in n8n's own Airtable v2 node).",
      severity: 'error',
      from: { path: '^packages/n8n/nodes/EmailVerification/actions/([^/]+)/' },
      to: {
        path: '^packages/n8n/nodes/EmailVerification/actions/[^/]+/',
        pathNot: '^packages/n8n/nodes/EmailVerification/actions/$1/',
      },
    },
    {
      name: 'n8n-triggers-use-no-operation-folder',
      comment:
        "A trigger node shares the action node's helpers/, transport/ and common descriptions, never an operation's folder.",
      severity: 'error',
      from: { path: '^packages/n8n/nodes/EmailVerification[A-Za-z]*Trigger/' },
      to: { path: '^packages/n8n/nodes/EmailVerification/actions/[^/]+/' },
    },
    {
      name: 'n8n-triggers-do-not-import-each-other',
      comment: "Code both triggers need lives in the action node's helpers/.",
      severity: 'error',
      from: { path: '^packages/n8n/nodes/(EmailVerification[A-Za-z]*Trigger)/' },
      to: {
        path: '^packages/n8n/nodes/EmailVerification[A-Za-z]*Trigger/',
        pathNot: '^packages/n8n/nodes/$1/',
      },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)(node_modules|dist|build|\\.n8n)/' },
    // Type-only imports count: the cycle the client had was one.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    // Workspace packages resolve to their TypeScript source, as jest and tsc resolve them.
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['source', 'require', 'import', 'node', 'default'],
      extensions: ['.ts', '.cjs', '.mjs', '.js', '.json'],
      mainFields: ['main', 'types'],
    },
    combinedDependencies: false,
  },
};
