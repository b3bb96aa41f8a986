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
COPY scripts/patch-postgres-driver.mjs scripts/
# Production dependencies only: the runtime image brings its own Bun, so the `bun` npm package
# (a dev dependency) is not needed, and no production dependency has an install script
# (a new one that needs it shows "hasInstallScript": true in package-lock.json). Scripts are
# off, so the project's own postinstall step, the Postgres driver fix (docs/operations.md),
# runs explicitly.
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund \
 && node scripts/patch-postgres-driver.mjs

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
