# syntax=docker/dockerfile:1
#
# Two stages. The project pins its dependencies in package-lock.json, which only npm reads
# exactly, so a Node stage runs `npm ci`; the runtime stage is the official Bun image, which
# runs the TypeScript sources directly. Both stages are Debian (glibc), so the native DuckDB
# binding npm picks for the build platform is the one the runtime loads.
#
#   docker build -t svc-attribution .
#   docker run -p 3000:3000 -v svc-data:/data svc-attribution
#
# The test suite runs on the Bun version pinned in package.json (devDependency `bun`); pin the
# runtime to the same release with e.g. --build-arg BUN_IMAGE=oven/bun:1.4.5.
ARG BUN_IMAGE=oven/bun:1

FROM node:20-bookworm-slim AS deps
WORKDIR /app
COPY package.json package-lock.json ./
# The web SDK is an npm workspace: its manifest is part of what `npm ci` checks the lock against.
COPY sdk/web/package.json sdk/web/
COPY patches/ patches/
# Scripts off: no production dependency has one (a new one shows "hasInstallScript": true in
# package-lock.json). The project's postinstall, the driver fix in patches/ (docs/operations.md),
# runs explicitly with patch-package, a dev dependency pruned with the others afterwards.
RUN npm ci --ignore-scripts --no-audit --no-fund \
 && node_modules/.bin/patch-package --error-on-fail --error-on-warn \
 && npm prune --omit=dev --ignore-scripts --no-audit --no-fund

FROM ${BUN_IMAGE} AS runtime
WORKDIR /app
ENV PORT=3000 \
    DATA_DIR=/data
COPY --from=deps /app/node_modules ./node_modules
# Sources, migrations and docs (.dockerignore keeps node_modules, data, .git, tests and logs out).
# Owned by root and read-only to the service user: the service writes only under DATA_DIR.
COPY . .
# The image's unprivileged `bun` user (uid 1000) owns the data volume.
RUN mkdir -p /data && chown bun:bun /data
VOLUME ["/data"]
USER bun
EXPOSE 3000
# The image has no curl; Bun's fetch asks the health endpoint (200 only when the database answers).
HEALTHCHECK --interval=15s --timeout=5s --start-period=60s --retries=3 \
  CMD ["bun", "-e", "const r = await fetch(`http://127.0.0.1:${process.env.PORT || 3000}/api/health`); process.exit(r.ok ? 0 : 1)"]
# Exec form: bun is PID 1 and receives SIGTERM itself (graceful drain and flush; give it
# `docker stop --time 30` or compose's stop_grace_period on busy nodes).
CMD ["bun", "src/main.ts"]
