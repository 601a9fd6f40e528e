// What the CLI bundle gets for `import ... from 'undici'` (scripts/bundle.mjs aliases it here): the
// parts src/service/http.ts uses (Agent, EnvHttpProxyAgent, the retry interceptor, Dispatcher#request),
// without the index's fetch, WebSocket, EventSource, mocks and caches, which a run would load and
// evaluate for nothing at every start. The tsc build and the tests' library imports use undici whole.
const Dispatcher = require('../node_modules/undici/lib/dispatcher/dispatcher');

// What undici's index does, as it does it: every dispatcher gets request(), stream(), pipeline(),
// upgrade() and connect(). The client calls only request(), but undici's own code calls the others: its
// proxy agent opens the tunnel to an https:// service with connect() (test/e2e/proxy.test.ts).
Object.assign(Dispatcher.prototype, require('../node_modules/undici/lib/api'));

module.exports = {
  Dispatcher,
  Agent: require('../node_modules/undici/lib/dispatcher/agent'),
  EnvHttpProxyAgent: require('../node_modules/undici/lib/dispatcher/env-http-proxy-agent'),
  interceptors: { retry: require('../node_modules/undici/lib/interceptor/retry') },
  // Notifications (src/notify) post through undici's request() on its global dispatcher: rare, so the
  // whole of undici is a chunk of its own, read only when one is sent (a require() here would put it
  // in the chunk every run reads). Same answer: a promise of the response.
  request: (url, options) =>
    import('../node_modules/undici/index.js').then((undici) =>
      (undici.default ?? undici).request(url, options),
    ),
};
