# tracegrade in a container. By default it runs `tracegrade serve`, the OTLP receiver that sits
# behind the collector in docker-compose.yml. The entrypoint is the CLI itself, so
# `docker run --rm tracegrade:local --help` lists the other commands.
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    TRACEGRADE_DB=/data/tracegrade.duckdb

# A fixed non-root uid so files in the /data volume have a stable owner across rebuilds. /data is
# created here and owned by that user: Docker copies the ownership into a new named volume the first
# time it is mounted, so `tracegrade serve` can create its DuckDB file there. /archive likewise, for
# the Parquet archive the shards of docker-compose.sharded.yml share (serve --archive /archive).
RUN groupadd --system --gid 10001 tracegrade \
 && useradd --system --uid 10001 --gid tracegrade --home-dir /data --no-create-home tracegrade \
 && mkdir /data /archive \
 && chown tracegrade:tracegrade /data /archive

# Every dependency, and the build backend, exactly as requirements.lock pins them: pip checks
# each download against the lock's sha256 hashes and installs nothing the lock does not name.
# Then the package itself, with nothing more fetched (no dependencies, no isolated build).
# Its build needs only project metadata, the readme it embeds, the package, and queries/
# (force-included into the wheel).
WORKDIR /build
COPY requirements.lock pyproject.toml README.md ./
COPY src ./src
COPY queries ./queries
RUN pip install --no-cache-dir --require-hashes -r requirements.lock \
 && pip install --no-cache-dir --no-deps --no-build-isolation . \
 && rm -rf /build

USER tracegrade
WORKDIR /data

# OTLP/HTTP (also /health and the read-only /v1/sql) and OTLP/gRPC: `tracegrade serve`'s defaults.
EXPOSE 4318 4317

# Uses Python because the slim image has no curl. Sends the bearer token when one is configured,
# so the check also works if /health is ever put behind auth.
HEALTHCHECK --interval=10s --timeout=5s --start-period=30s --retries=3 \
  CMD ["python", "-c", "import os, urllib.request as r; t = os.environ.get('TRACEGRADE_TOKEN'); r.urlopen(r.Request('http://127.0.0.1:4318/health', headers={'Authorization': 'Bearer ' + t} if t else {}), timeout=4)"]

ENTRYPOINT ["tracegrade"]
# The defaults bind 127.0.0.1, which nothing outside the container can reach, hence --host 0.0.0.0.
CMD ["serve", "--host", "0.0.0.0", "--db", "/data/tracegrade.duckdb"]
