# errkb: build a wheel in one stage, install it into a slim, non-root runtime.
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
RUN useradd --create-home --uid 10001 errkb
COPY --from=build /dist/*.whl /tmp/
RUN pip install --no-cache-dir /tmp/*.whl && rm /tmp/*.whl
USER errkb
WORKDIR /home/errkb
EXPOSE 3000
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
  CMD python -c "import urllib.request,sys; sys.exit(0 if urllib.request.urlopen('http://127.0.0.1:3000/healthz', timeout=4).status == 200 else 1)"
ENTRYPOINT ["errkb"]
CMD ["serve", "--http", "--port", "3000"]
