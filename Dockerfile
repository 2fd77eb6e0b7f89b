# syntax=docker/dockerfile:1
# svc-graphql-engine, production image. Stage 1 compiles the TypeScript; stage 2 holds only the
# production dependencies, the compiled engine and pg_dump (for the /v1alpha1/pg_dump API), and
# runs as the unprivileged `node` user.

FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY scripts ./scripts
COPY core ./core
COPY plugins ./plugins
COPY config ./config
RUN node scripts/build.js && npm prune --omit=dev --no-audit --no-fund

FROM node:20-bookworm-slim
# pg_dump must be at least as new as the servers it dumps: the client comes from the PostgreSQL
# project's Debian repository, in the major version given here.
ARG PG_CLIENT_MAJOR=17
RUN apt-get update \
 && apt-get install -y --no-install-recommends ca-certificates curl \
 && install -d /usr/share/postgresql-common/pgdg \
 && curl -fsSL -o /usr/share/postgresql-common/pgdg/apt.postgresql.org.asc https://www.postgresql.org/media/keys/ACCC4CF8.asc \
 && echo "deb [signed-by=/usr/share/postgresql-common/pgdg/apt.postgresql.org.asc] https://apt.postgresql.org/pub/repos/apt bookworm-pgdg main" > /etc/apt/sources.list.d/pgdg.list \
 && apt-get update \
 && apt-get install -y --no-install-recommends "postgresql-client-${PG_CLIENT_MAJOR}" \
 && apt-get purge -y curl && apt-get autoremove -y \
 && rm -rf /var/lib/apt/lists/*
ENV NODE_ENV=production \
    SVC_GRAPHQL_SERVER_PORT=8080 \
    SVC_GRAPHQL_DATA_DIR=/var/lib/svc-graphql-engine
WORKDIR /app
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY package.json LICENSE README.md ./
COPY bin ./bin
COPY config/plugins.json ./config/plugins.json
RUN install -d -o node -g node /var/lib/svc-graphql-engine
USER node
EXPOSE 8080
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.SVC_GRAPHQL_SERVER_PORT || 8080) + '/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
ENTRYPOINT ["node", "bin/svc-graphql-engine.js"]
CMD ["serve"]
