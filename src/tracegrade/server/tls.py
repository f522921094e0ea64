"""`serve --tls-cert/--tls-key`: the certificate and key, checked once at start.

Both ports use the same pair: uvicorn reads the files for HTTPS, grpcio takes their bytes
for gRPC over TLS. They are loaded here first so a wrong path, an unreadable file or a key
that does not match the certificate stops the start with one line, before anything binds.
"""

from __future__ import annotations

import ssl
from dataclasses import dataclass
from pathlib import Path

import grpc

from tracegrade.errors import ConfigError
from tracegrade.server.config import ServeConfig


@dataclass(frozen=True)
class TlsFiles:
    cert: Path
    key: Path
    cert_pem: bytes
    key_pem: bytes

    def grpc_credentials(self) -> grpc.ServerCredentials:
        return grpc.ssl_server_credentials([(self.key_pem, self.cert_pem)])


def load_tls(config: ServeConfig) -> TlsFiles | None:
    """The pair to serve with, or None when TLS is off; ConfigError if it cannot serve."""
    if config.tls_cert is None and config.tls_key is None:
        return None
    if config.tls_cert is None or config.tls_key is None:
        raise ConfigError("--tls-cert and --tls-key go together: give both, or neither")
    cert, key = config.tls_cert.expanduser().resolve(), config.tls_key.expanduser().resolve()
    files = TlsFiles(cert, key, _read(cert, "--tls-cert"), _read(key, "--tls-key"))
    try:
        context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        context.load_cert_chain(cert, key, password=_no_password)
    except (ssl.SSLError, ValueError) as exc:
        raise ConfigError(
            f"--tls-cert {cert} with --tls-key {key}: not a PEM certificate and its matching "
            f"unencrypted private key ({exc})"
        ) from None
    return files


def _no_password() -> bytes:
    """An encrypted key fails here instead of making OpenSSL prompt on the terminal."""
    return b""


def _read(path: Path, option: str) -> bytes:
    try:
        return path.read_bytes()
    except OSError as exc:
        raise ConfigError(f"{option} {path}: cannot read it: {exc.strerror or exc}") from None
