# errkb: build a wheel in one stage, install it into a slim, non-root runtime.
# The dependencies are requirements.lock's, pinned with hashes, so two builds months
# apart install the same versions; the wheel itself adds nothing to them (--no-deps).
FROM python:3.11-slim AS build
WORKDIR /src
RUN pip install --no-cache-dir build
COPY pyproject.toml README.md ./
COPY bot ./bot
COPY graph ./graph
COPY data ./data
RUN python -m build --wheel --outdir /dist

FROM python:3.11-slim
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1
# tini as PID 1: it forwards SIGTERM to errkb and reaps what exits under it
RUN apt-get update \
  && apt-get install -y --no-install-recommends tini \
  && rm -rf /var/lib/apt/lists/*
RUN useradd --create-home --uid 10001 errkb \
  && mkdir -p /var/cache/errkb && chown errkb:errkb /var/cache/errkb
COPY requirements.lock /tmp/requirements.lock
RUN pip install --no-cache-dir --require-hashes -r /tmp/requirements.lock \
  && rm /tmp/requirements.lock
COPY --from=build /dist/*.whl /tmp/
# pip check: the lock holds everything the wheel asks for, in versions it allows
RUN pip install --no-cache-dir --no-deps /tmp/*.whl && rm /tmp/*.whl && pip check
USER errkb
WORKDIR /home/errkb
# the snapshot the index restarts from; docker-compose.yml mounts a volume here
ENV ERRKB_CACHE_DIR=/var/cache/errkb
# glibc's malloc with a fixed mmap threshold (its default, which it otherwise raises each
# time a large block is freed): the large arrays a knowledge update makes are mapped on
# their own and go back to the system whole when freed, instead of staying in the heap
ENV GLIBC_TUNABLES=glibc.malloc.mmap_threshold=131072
EXPOSE 3000
# fits errkb serve --http (the default command); docker-compose.yml gives the Socket Mode
# and MCP services probes of their own
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 \
  CMD ["python", "-c", "import sys, urllib.request; sys.exit(0 if urllib.request.urlopen('http://127.0.0.1:3000/healthz', timeout=4).status == 200 else 1)"]
ENTRYPOINT ["/usr/bin/tini", "--", "errkb"]
CMD ["serve", "--http", "--port", "3000"]
