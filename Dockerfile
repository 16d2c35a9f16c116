# The service's image: Debian bookworm, the pinned Node.js from the npm registry (the `node`
# package, as the repository installs it), Debian's chromium, ffmpeg, fonts and pocketsphinx.
# Build: scripts/build-image.sh [TAG] (podman or docker; makes the Debian base from the archive
# when no registry serves it). Run: ROLE=all|api|worker (default all), see docs/operations.md.

FROM debian:bookworm-slim AS build
# Debian's Node and npm only fetch the toolchain: the Node.js package-lock.json pins (the `node`
# package's build) and npm 12, which runs only the install scripts package.json's allowScripts approves.
# NODE_VERSION is package-lock.json's `node` (test/deploy-files.e2e-spec.ts checks): named here,
# the toolchain layer stays cached when the lock changes otherwise.
ARG NODE_VERSION=24.21.0
ARG NPM_VERSION=12.2.2
RUN apt-get update \
 && apt-get install -y --no-install-recommends nodejs npm ca-certificates \
 && rm -rf /var/lib/apt/lists/*
# build-ca: the building machine's CA bundle, for an HTTPS proxy between it and the registry
# (scripts/build-image.sh passes it when set; a secret, so it is in no layer and no cache key).
RUN --mount=type=secret,id=build-ca,target=/run/secrets/build-ca \
    if [ -s /run/secrets/build-ca ]; then export NODE_EXTRA_CA_CERTS=/run/secrets/build-ca; fi \
 && mkdir -p /opt/toolchain && cd /opt/toolchain \
 && npm install --no-save --no-package-lock --no-audit --no-fund --loglevel=error \
      "$(node -p '"node-" + process.platform + "-" + process.arch')@$NODE_VERSION" "npm@$NPM_VERSION" \
 && rm -rf /root/.npm
ENV PATH=/opt/toolchain/node_modules/.bin:$PATH PUPPETEER_SKIP_DOWNLOAD=1
WORKDIR /app
# The install step sees only what decides node_modules, so a source change keeps its layer.
COPY package.json package-lock.json .npmrc ./
COPY scripts/npm-install.sh scripts/
COPY clients/cli/package.json clients/cli/
COPY clients/typescript/package.json clients/typescript/
RUN --mount=type=secret,id=build-ca,target=/run/secrets/build-ca \
    if [ -s /run/secrets/build-ca ]; then export NODE_EXTRA_CA_CERTS=/run/secrets/build-ca; fi \
 && bash scripts/npm-install.sh --loglevel=error && rm -rf node_modules/.cache /root/.npm
COPY . .
# GET /v1/version reports it (dist/build-info.json); the build context has no .git.
ARG GIT_COMMIT=
# npm prune reads the manifests of other platforms' optional packages: it needs the registry too.
RUN --mount=type=secret,id=build-ca,target=/run/secrets/build-ca \
    if [ -s /run/secrets/build-ca ]; then export NODE_EXTRA_CA_CERTS=/run/secrets/build-ca; fi \
 && npm run build \
 && npm prune --omit=dev --no-audit --no-fund --loglevel=error \
 && rm -rf node_modules/.cache /root/.npm

FROM debian:bookworm-slim
# The runtime and image lines of the package list the install script reads too.
COPY scripts/debian-packages.txt /tmp/debian-packages.txt
RUN apt-get update \
 && apt-get install -y --no-install-recommends $(awk '$1 !~ /^#/ && ($2 == "runtime" || $2 == "image") {print $1}' /tmp/debian-packages.txt) \
 && apt-get clean && rm -rf /var/lib/apt/lists/* /tmp/debian-packages.txt \
 && useradd --system --uid 10001 --user-group --home-dir /data --no-create-home app \
 && mkdir -p /data && chown app:app /data
WORKDIR /app
ENV PATH=/app/node_modules/node/bin:$PATH \
    NODE_ENV=production \
    ROLE=all \
    PORT=8080 \
    HOST=0.0.0.0 \
    DATA_DIR=/data \
    RENDER_CACHE_DIR=/data/cache \
    LOG_FORMAT=json
COPY --from=build /app/package.json ./package.json
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
# The offline Chromium wrapper Remotion is given as browserExecutable (CHROMIUM_EXECUTABLE default).
COPY --from=build /app/scripts/chromium-offline.sh ./scripts/chromium-offline.sh
USER app
VOLUME /data
EXPOSE 8080
# No CMD: a command-line role would override ROLE, which deployments set.
ENTRYPOINT ["/usr/bin/tini", "--", "node", "dist/src/main.js"]
