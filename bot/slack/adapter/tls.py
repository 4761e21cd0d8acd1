"""The TLS context of every connection errkb opens to Slack.

Making a default TLS context reads and parses the system's CA certificates, which
costs far more CPU than the API call it serves; slack_sdk and urllib make a new one
for each connection unless given one. :func:`client_context` is made once, on first
use, and shared by every client (an ``SSLContext`` may be shared between threads). It
verifies exactly as the default does (certificate and host name), and it honours
``SSL_CERT_FILE`` / ``SSL_CERT_DIR`` as read when it is made.
"""

from __future__ import annotations

import functools
import ssl


@functools.cache
def client_context() -> ssl.SSLContext:
    """The one TLS context for connections to Slack."""
    return ssl.create_default_context()


__all__ = ["client_context"]
