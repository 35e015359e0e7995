# Production image of the service (used by docker-compose.yml): built in one stage, run from
# compiled JavaScript in another, as the unprivileged `node` user.

# Build: the server's bundle (dist/server), the operator console (console/dist) and the chat
# widget's script (dist/widget); vite, esbuild and tsx are devDependencies and stay here.
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json ./
COPY kernel ./kernel
COPY src ./src
COPY machines ./machines
COPY agents ./agents
COPY adapters ./adapters
COPY sdk ./sdk
COPY console ./console
COPY widget ./widget
COPY scripts ./scripts
RUN npx tsx scripts/build.ts --force && npx tsx scripts/build-widget.ts

# Runtime packages only.
FROM node:20-bookworm-slim AS deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund

FROM node:20-bookworm-slim AS runtime
WORKDIR /app
ENV NODE_ENV=production HOST=0.0.0.0 PORT=3000
COPY package.json ./
COPY --from=deps /app/node_modules ./node_modules
COPY --from=build /app/dist/server ./dist/server
COPY --from=build /app/dist/widget ./dist/widget
COPY --from=build /app/console/dist ./console/dist
# agentctl (docker exec … node bin/agentctl.js) runs the compiled CLI: no sources here, so the bundle is fresh.
# The launchers' freshness check (bin/build-targets.js) comes with bin/; the function it calls does not.
COPY bin ./bin
COPY kernel/shared/build-freshness.js ./kernel/shared/
# The embedded profile's data directory (a volume in practice) is the only place the service writes.
RUN mkdir -p /app/data && chown node:node /app/data
USER node
EXPOSE 3000
# Healthy once it is ready to serve (store, scheduler, bus, runtime), as the load balancer asks.
HEALTHCHECK --interval=10s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/readyz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
# node itself is PID 1 (no npm, npx or shell in between), so SIGTERM from `docker stop` reaches it.
CMD ["node", "--enable-source-maps", "dist/server/main.js"]
