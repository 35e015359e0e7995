# Production image of the service (used by docker-compose.yml).
# The operator console is built in its own stage (vite is a devDependency): only console/dist ships.
FROM node:20-bookworm-slim AS console
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY sdk/src ./sdk/src
COPY console ./console
COPY scripts/build-console.ts ./scripts/
COPY src/shared/build-freshness.ts ./src/shared/
RUN npx tsx scripts/build-console.ts --force

# The chat widget's script is bundled here (esbuild is a dev dependency); the image serves the bundle.
FROM node:20-bookworm-slim AS widget
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY src ./src
COPY widget ./widget
COPY scripts/build-widget.ts ./scripts/build-widget.ts
RUN npm run build:widget

FROM node:20-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund
COPY tsconfig.json ./
COPY src ./src
COPY machines ./machines
COPY agents ./agents
COPY adapters ./adapters
COPY bin ./bin
COPY --from=console /app/console/dist ./console/dist
COPY --from=widget /app/dist/widget ./dist/widget
EXPOSE 3000
USER node
# node itself is PID 1 (no npm, npx or shell in between), so SIGTERM from `docker stop` reaches it.
CMD ["node", "--import", "tsx", "src/main.ts"]
