# One image recipe for every service. Build from the repository root, naming the service's workspace:
#   docker build --build-arg WORKSPACE=services/logs -t guildhall/logs .
# WORKSPACE is one of the root package.json's `services/*` workspaces (gateway, moderation, tickets, logs,
# community, billing, bridge); the image runs that workspace's `dist/main.js` (its `npm start`) on Node 22 LTS,
# serving /healthz, /readyz and /metrics on PORT (8080). The gateway's image also builds the dashboard (apps/dashboard,
# Vite) and serves it at / from /app/apps/dashboard/dist; the other images carry an empty dist folder.
FROM node:22-bookworm-slim AS build
ARG WORKSPACE
RUN test -n "$WORKSPACE" || { echo "set --build-arg WORKSPACE=services/<name>" >&2; exit 1; }
WORKDIR /app
COPY package.json package-lock.json tsconfig.base.json ./
COPY libs ./libs
COPY services ./services
COPY apps ./apps
RUN test -f "$WORKSPACE/tsconfig.json" || { echo "no workspace at $WORKSPACE" >&2; exit 1; } \
  && npm ci --no-audit --no-fund --ignore-scripts \
  && npx tsc -b "$WORKSPACE" \
  && if [ "$WORKSPACE" = services/gateway ]; then npm run build -w @guildhall/dashboard; fi \
  && mkdir -p apps/dashboard/dist \
  && npm prune --omit=dev --ignore-scripts

FROM node:22-bookworm-slim
ARG WORKSPACE
ENV NODE_ENV=production HOST=0.0.0.0 PORT=8080
WORKDIR /app
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/libs ./libs
COPY --from=build /app/${WORKSPACE} ./${WORKSPACE}
COPY --from=build /app/apps/dashboard/dist ./apps/dashboard/dist
WORKDIR /app/${WORKSPACE}
USER node
EXPOSE 8080
HEALTHCHECK --interval=10s --timeout=3s CMD node -e "fetch('http://127.0.0.1:'+(process.env.PORT||8080)+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
CMD ["node", "dist/main.js"]
