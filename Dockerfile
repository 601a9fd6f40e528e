# syntax=docker/dockerfile:1
# websites-sync: the daemon by default (reconcile at start, on every manifest change, every --interval).
#   docker build -t websites-sync .
#   docker run --init -v "$PWD/config:/config:ro" -v websites-sync-state:/var/lib/websites-sync \
#     -e WEBSITES_SYNC_BASE_URL=https://stats.example.com -e WEBSITES_SYNC_API_KEY_FILE=/run/secrets/key ... websites-sync
# Any other mode is an argument away: `docker run ... websites-sync --once --dry-run`.

ARG NODE_VERSION=24

# ---- build: dev dependencies and the TypeScript compiler stay in this stage -------------------------
FROM node:${NODE_VERSION}-slim AS build
WORKDIR /src
COPY package.json package-lock.json ./
# No install scripts: the `node` devDependency's would download a second Node (the base image has one),
# and nothing the build uses needs one (esbuild finds its platform binary without its own).
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY scripts ./scripts
COPY src ./src
RUN npm run build

# ---- runtime: production dependencies only, non-root ----------------------------------------------
FROM node:${NODE_VERSION}-slim
ENV NODE_ENV=production
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund && npm cache clean --force
COPY --from=build /src/dist ./dist
COPY schema ./schema

# The state file (fingerprints of write-only fields) must survive restarts: keep it on a volume.
# Created here and owned by `node` (uid 1000), so a fresh named volume starts out writable by the daemon.
RUN mkdir -p /var/lib/websites-sync /config && chown 1000:1000 /var/lib/websites-sync
ENV WEBSITES_SYNC_STATE_FILE=/var/lib/websites-sync/state.json \
    WEBSITES_SYNC_MANIFEST=/config/websites.yaml \
    WEBSITES_SYNC_LISTEN=0.0.0.0:9090
VOLUME ["/var/lib/websites-sync"]

# The image's `node` user, by number: Kubernetes' runAsNonRoot can verify only a numeric user.
USER 1000:1000
EXPOSE 9090

# Liveness only: an invalid manifest makes the daemon not ready (/readyz), never unhealthy, since a
# restart would not fix it. Node 24 has fetch, so no curl is needed in the image.
HEALTHCHECK --interval=30s --timeout=5s --start-period=10s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:9090/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]

# Node is PID 1 here and handles SIGTERM/SIGINT itself (graceful shutdown within 25 s); `docker run
# --init` (or `init: true` in compose) adds a reaper in front and changes nothing else. Give it time:
# `docker stop -t 30` / `stop_grace_period: 30s` (Docker's default is 10 s).
STOPSIGNAL SIGTERM
# The CLI runs through its shebang (`#!/usr/bin/env -S node --max-semi-space-size=2`),
# as the installed `websites-sync` command does: the V8 option that keeps its memory small comes with it.
ENTRYPOINT ["/app/dist/cli/main.js"]
