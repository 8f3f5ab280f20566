# editguard over Streamable HTTP. Build: docker build -t editguard .
# Run:   docker run --rm -p 127.0.0.1:3333:3333 -e EDITGUARD_TOKEN=… -v "$PWD:/workspace" editguard
# Installs skip lifecycle scripts: package.json's `prepare` would compile before src/ is copied.

# Stage 1: compile with the full (dev) dependency set from the lockfile.
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
RUN npm run build

# Stage 2: production dependencies only.
FROM node:20-bookworm-slim AS deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund

# Stage 3: the runtime, as the unprivileged node user.
FROM node:20-bookworm-slim
ENV NODE_ENV=production
WORKDIR /app
COPY --from=deps /app/package.json ./package.json
COPY --from=deps /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY scripts/docker-healthcheck.mjs ./scripts/docker-healthcheck.mjs
# /state is world-writable with the sticky bit so that any --user (e.g. "$(id -u):$(id -g)") can keep
# history in a fresh named volume, which starts as a copy of this directory; the server checks it at start.
RUN mkdir -p /workspace /state && chown node:node /workspace /state && chmod 1777 /state
USER node
VOLUME ["/workspace", "/state"]
EXPOSE 3333
# /healthz needs no token; the server refuses to start on 0.0.0.0 without EDITGUARD_TOKEN. The check
# reads host and port from the server's own command line, so a CMD with another --port is followed.
HEALTHCHECK --interval=30s --timeout=5s --start-period=10s --retries=3 CMD ["node", "/app/scripts/docker-healthcheck.mjs"]
ENTRYPOINT ["node", "/app/dist/cli.js"]
CMD ["--http", "--host", "0.0.0.0", "--port", "3333", "--root", "/workspace", "--state-dir", "/state"]
