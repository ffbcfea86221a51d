# Cairn's image: `docker build -t cairn:latest .`, run by docker-compose.yml and
# apiservice/30-deployment.yaml. Two stages: TypeScript is compiled with the dev
# dependencies; the image keeps only the production ones and the compiled server.

FROM node:22-bookworm-slim AS build
WORKDIR /app
# The sources before `npm ci`: it runs the package's `prepare` (the client's build).
COPY package.json package-lock.json tsconfig.json tsconfig.build.json tsconfig.client.json ./
COPY src ./src
COPY migrations ./migrations
RUN npm ci
RUN npm run build

FROM node:22-bookworm-slim
ENV NODE_ENV=production
WORKDIR /app
COPY package.json package-lock.json ./
# No scripts: `prepare` needs the dev toolchain, and no production dependency has one.
RUN npm ci --omit=dev --ignore-scripts && npm cache clean --force
COPY --from=build /app/dist ./dist
# The data directory (generated TLS material, the admin kubeconfig, PGlite without
# DATABASE_URL), owned by the image's unprivileged `node` user.
RUN mkdir -p /var/lib/cairn && chown 1000:1000 /var/lib/cairn
# `node`, by number, so Kubernetes' runAsNonRoot can tell it is not root.
USER 1000:1000
EXPOSE 8443
ENTRYPOINT ["node", "dist/src/server/main.js"]
CMD ["start"]
