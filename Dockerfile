# Production image of the service (used by docker-compose.yml).
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
EXPOSE 3000
USER node
CMD ["npx", "tsx", "src/main.ts"]
