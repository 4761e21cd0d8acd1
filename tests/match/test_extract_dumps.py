"""Structured dumps: the properties of an error object are not errors.

Node prints an error with its properties (``util.inspect``): ``errno: -111,``,
``code: 'ECONNREFUSED',``, a request's whole config. Those lines describe the
error above them; only the error lines themselves are errors (and are what the
unknown-error queue keeps). The pastes are Node's own output, as people paste it.
"""

from __future__ import annotations

import pytest

from bot.match.extract import extract

PG_REFUSED = """\
node:internal/process/promises:288
            triggerUncaughtException(err, true /* fromPromise */);
            ^

Error: connect ECONNREFUSED 127.0.0.1:5432
    at TCPConnectWrap.afterConnect [as oncomplete] (node:net:1494:16) {
  errno: -111,
  code: 'ECONNREFUSED',
  syscall: 'connect',
  address: '127.0.0.1',
  port: 5432
}

Node.js v18.17.0"""

AGGREGATE = """\
node:internal/process/promises:289
            triggerUncaughtException(err, true /* fromPromise */);
            ^

AggregateError [ECONNREFUSED]: 
    at internalConnectMultiple (node:net:1114:18)
    at afterConnectMultiple (node:net:1667:5) {
  code: 'ECONNREFUSED',
  [errors]: [
    Error: connect ECONNREFUSED ::1:6379
        at createConnectionError (node:net:1634:14)
        at afterConnectMultiple (node:net:1664:40) {
      errno: -111,
      code: 'ECONNREFUSED',
      syscall: 'connect',
      address: '::1',
      port: 6379
    },
    Error: connect ECONNREFUSED 127.0.0.1:6379
        at createConnectionError (node:net:1634:14)
        at afterConnectMultiple (node:net:1664:40) {
      errno: -111,
      code: 'ECONNREFUSED',
      syscall: 'connect',
      address: '127.0.0.1',
      port: 6379
    }
  ]
}

Node.js v20.11.0"""

AXIOS = """\
AxiosError: Request failed with status code 404
    at settle (/app/node_modules/axios/dist/node/axios.cjs:1913:12)
    at IncomingMessage.handleStreamEnd (/app/node_modules/axios/dist/node/axios.cjs:2995:11)
    at IncomingMessage.emit (node:events:529:35)
    at endReadableNT (node:internal/streams/readable:1400:12)
    at process.processTicksAndRejections (node:internal/process/task_queues:82:21) {
  code: 'ERR_BAD_REQUEST',
  config: {
    transitional: {
      silentJSONParsing: true,
      forcedJSONParsing: true,
      clarifyTimeoutError: false
    },
    adapter: [ 'xhr', 'http' ],
    timeout: 0,
    xsrfCookieName: 'XSRF-TOKEN',
    maxContentLength: -1,
    validateStatus: [Function: validateStatus],
    method: 'get',
    url: 'https://api.example.com/v1/missing',
    data: undefined
  },
  request: <ref *1> ClientRequest {
    _events: [Object: null prototype] {
      abort: [Function (anonymous)],
      error: [Function: handleRequestError],
      socket: [Function: handleRequestSocket],
      timeout: [Function: handleRequestTimeout]
    },
    _headerSent: true,
    aborted: false,
    timeoutCb: null,
    [Symbol(kError)]: null
  },
  response: {
    status: 404,
    statusText: 'Not Found',
    data: { error: 'Not Found', message: 'Cannot GET /v1/missing' }
  }
}"""

FETCH = """\
TypeError: fetch failed
    at Object.fetch (node:internal/deps/undici/undici:11730:11)
    at process.processTicksAndRejections (node:internal/process/task_queues:95:5) {
  cause: Error: getaddrinfo ENOTFOUND api.example.invalid
      at GetAddrInfoReqWrap.onlookup [as oncomplete] (node:dns:107:26) {
    errno: -3008,
    code: 'ENOTFOUND',
    syscall: 'getaddrinfo',
    hostname: 'api.example.invalid'
  }
}"""

ENOENT = """\
node:fs:601
  handleErrorCode(ctx);
  ^

Error: ENOENT: no such file or directory, open '/app/config.json'
    at Object.openSync (node:fs:601:3)
    at Object.readFileSync (node:fs:469:35)
    at Object.<anonymous> (/app/index.js:3:20)
    at Module._compile (node:internal/modules/cjs/loader:1256:14) {
  errno: -2,
  syscall: 'open',
  code: 'ENOENT',
  path: '/app/config.json'
}

Node.js v18.17.0"""

MONGO = """\
MongoServerError: E11000 duplicate key error collection: test.users index: email_1 dup key: { email: "a@example.com" }
    at InsertOneOperation.execute (/app/node_modules/mongodb/lib/operations/insert.js:51:19)
    at process.processTicksAndRejections (node:internal/process/task_queues:95:5) {
  index: 0,
  code: 11000,
  errmsg: 'E11000 duplicate key error collection: test.users index: email_1 dup key: { email: "a@example.com" }',
  keyPattern: { email: 1 },
  keyValue: { email: 'a@example.com' },
  [Symbol(errorLabels)]: Set(0) {}
}"""

JSON_BODY = """\
Error: Request failed with status code 400
{
  "error": "invalid_grant",
  "error_description": "Token has been expired or revoked."
}"""


def errors(paste: str) -> list[str]:
    return [e.text for e in extract(paste).errors]


@pytest.mark.parametrize(
    ("paste", "expected"),
    [
        (PG_REFUSED, ["Error: connect ECONNREFUSED 127.0.0.1:5432"]),
        (ENOENT, ["Error: ENOENT: no such file or directory, open '/app/config.json'"]),
        (AXIOS, ["AxiosError: Request failed with status code 404"]),
        (
            MONGO,
            [
                'MongoServerError: E11000 duplicate key error collection: test.users index: email_1 dup key: { email: "a@example.com" }'
            ],
        ),
        (JSON_BODY, ["Error: Request failed with status code 400"]),
    ],
    ids=["pg-refused", "enoent", "axios-config", "mongo-duplicate", "json-body"],
)
def test_an_error_objects_properties_are_not_errors(paste: str, expected: list[str]) -> None:
    assert errors(paste) == expected


def test_errors_nested_in_a_dump_are_still_errors() -> None:
    """AggregateError lists its errors inside its own dump; a ``cause:`` holds the root."""
    assert errors(AGGREGATE) == [
        "AggregateError [ECONNREFUSED]:",
        "Error: connect ECONNREFUSED ::1:6379",
        "Error: connect ECONNREFUSED 127.0.0.1:6379",
    ]
    assert errors(FETCH) == [
        "TypeError: fetch failed",
        "cause: Error: getaddrinfo ENOTFOUND api.example.invalid",
    ]


def test_property_lines_stay_in_the_paste_as_context() -> None:
    roles = {line.text: line.role for line in extract(PG_REFUSED).lines}
    assert roles["errno: -111,"] == "context" and roles["code: 'ECONNREFUSED',"] == "context"


@pytest.mark.parametrize(
    ("paste", "expected"),
    [
        (
            "error: connection to redis lost\nwarn: retrying in 5s",
            "error: connection to redis lost",
        ),  # winston
        (
            "const config = {\n\nerror: Cannot find module 'express'",
            "error: Cannot find module 'express'",
        ),
        (
            "if (err) {\nerror: Cannot find module 'express'",
            "error: Cannot find module 'express'",
        ),  # code
    ],
    ids=["log-levels", "blank-line-ends-a-dump", "code-is-no-dump"],
)
def test_key_value_log_lines_outside_a_dump_stay_errors(paste: str, expected: str) -> None:
    assert expected in errors(paste)


def test_the_same_dump_pasted_twice_is_one_error() -> None:
    assert errors(PG_REFUSED + "\n\n" + PG_REFUSED.replace("5432", "5433")) == [
        "Error: connect ECONNREFUSED 127.0.0.1:5432"
    ]
