"""A certificate for the stand-in to serve HTTPS with, as Slack does.

:func:`self_signed` writes a fresh self-signed certificate for ``127.0.0.1`` and returns
its file (for a client to trust: ``SSL_CERT_FILE``, or ``load_verify_locations``) and a
server context to pass to :class:`~tests.slack.fake_slack.state.FakeSlack` as ``tls``."""

from __future__ import annotations

import datetime
import ipaddress
import ssl
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID


def self_signed(directory: Path, name: str = "stand-in") -> tuple[Path, ssl.SSLContext]:
    """A certificate for 127.0.0.1 in ``directory`` (``{name}.pem``, ``{name}.key``) and a
    server context that presents it."""
    key = ec.generate_private_key(ec.SECP256R1())
    serial = x509.random_serial_number()
    # a name of its own: a client trusting several finds each by its subject
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, f"errkb {name} {serial:x}")])
    now = datetime.datetime.now(datetime.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(subject)
        .issuer_name(subject)
        .public_key(key.public_key())
        .serial_number(serial)
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=2))
        .add_extension(
            x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
            critical=False,
        )
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    cert_file = directory / f"{name}.pem"
    key_file = directory / f"{name}.key"
    cert_file.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_file.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    server = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    server.load_cert_chain(cert_file, key_file)
    return cert_file, server
