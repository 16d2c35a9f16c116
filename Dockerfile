# Cloud Run image: Debian (bookworm) with Node 24, Debian's chromium, ffmpeg and fonts.
# Build: docker build -t video-service . ; the same image runs `all`, `api` or `worker`.

FROM node:24-bookworm-slim AS build
WORKDIR /app
# Remotion and puppeteer use Debian's chromium headless shell; nothing downloads a browser.
ENV PUPPETEER_SKIP_DOWNLOAD=1
COPY package.json package-lock.json ./
# The command-line tool and the typed client are linked packages of the repository (dev dependencies).
COPY clients/cli/package.json clients/cli/
COPY clients/typescript/package.json clients/typescript/
RUN npm install --no-audit --no-fund
COPY . .
RUN npm run build && npm prune --omit=dev

FROM node:24-bookworm-slim
RUN apt-get update \
 && apt-get install -y --no-install-recommends \
      chromium chromium-headless-shell ffmpeg fonts-dejavu-core fonts-liberation fonts-noto-color-emoji fonts-noto-core ca-certificates tini \
      pocketsphinx pocketsphinx-en-us \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /app
ENV NODE_ENV=production \
    PORT=8080 \
    HOST=0.0.0.0 \
    DATA_DIR=/tmp/data \
    LOG_FORMAT=json \
    TRUST_PROXY=1
COPY --from=build --chown=node:node /app/package.json ./package.json
COPY --from=build --chown=node:node /app/node_modules ./node_modules
COPY --from=build --chown=node:node /app/dist ./dist
# The offline Chromium wrapper Remotion is given as browserExecutable (CHROMIUM_EXECUTABLE default).
COPY --from=build --chown=node:node /app/scripts/chromium-offline.sh ./scripts/chromium-offline.sh
USER node
EXPOSE 8080
ENTRYPOINT ["/usr/bin/tini", "--", "node", "dist/src/main.js"]
CMD ["all"]
