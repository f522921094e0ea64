"""`serve --tls-cert/--tls-key`: HTTPS and gRPC over TLS, with a self-signed certificate
made here, and the real OTel SDK exporters and the CLI as the clients."""

from __future__ import annotations

import datetime
import http.client
import ipaddress
import json
import os
import ssl
import subprocess
from collections.abc import Iterator, Sequence
from pathlib import Path

import grpc
import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID
from opentelemetry.exporter.otlp.proto.grpc.trace_exporter import (
    OTLPSpanExporter as GrpcExporter,
)
from opentelemetry.exporter.otlp.proto.http.trace_exporter import (
    OTLPSpanExporter as HttpExporter,
)
from opentelemetry.proto.collector.trace.v1.trace_service_pb2_grpc import TraceServiceStub
from opentelemetry.sdk.trace.export import SpanExportResult

from tests.support.otlp import otlp_request
from tests.support.span_factory import adk_like_spans
from tracegrade.server.messages import RequestHead
from tracegrade.server.pages import PageAuth

from .helpers import TRACEGRADE, Server, free_port, ids_of, request, start_server

TOKEN = "tls-token-for-tests"


def write_certificate(folder: Path, name: str = "serve") -> tuple[Path, Path]:
    """A self-signed certificate for 127.0.0.1 and localhost, and its key, as PEM files."""
    key = ec.generate_private_key(ec.SECP256R1())
    subject = _name("tracegrade test")
    names = [x509.DNSName("localhost"), x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]
    certificate = _builder(subject, subject, key, names).sign(key, hashes.SHA256())
    return _write(folder, name, [certificate], key)


def write_issued_certificate(folder: Path) -> tuple[Path, Path, Path]:
    """A CA, and a certificate it issued for tracegrade.example only (not 127.0.0.1): the
    chain file (certificate then CA), its key, and the CA's file."""
    ca_key, key = ec.generate_private_key(ec.SECP256R1()), ec.generate_private_key(ec.SECP256R1())
    ca_name = _name("tracegrade test CA")
    ca = (
        _builder(ca_name, ca_name, ca_key, [])
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .add_extension(x509.KeyUsage(False, False, False, False, False, True, True, False, False),
                       critical=True)
        .sign(ca_key, hashes.SHA256())
    )  # fmt: skip
    names = [x509.DNSName("tracegrade.example")]
    issued = _builder(_name("tracegrade.example"), ca_name, key, names).sign(
        ca_key, hashes.SHA256()
    )
    chain, chain_key = _write(folder, "issued", [issued, ca], key)
    return chain, chain_key, _write(folder, "ca", [ca], ca_key)[0]


def _name(common_name: str) -> x509.Name:
    return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common_name)])


def _builder(
    subject: x509.Name,
    issuer: x509.Name,
    key: ec.EllipticCurvePrivateKey,
    names: Sequence[x509.GeneralName],
) -> x509.CertificateBuilder:
    now = datetime.datetime.now(datetime.UTC)
    builder = (
        x509.CertificateBuilder()
        .subject_name(subject)
        .issuer_name(issuer)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=1))
    )
    if names:
        builder = builder.add_extension(x509.SubjectAlternativeName(names), critical=False)
    return builder


def _write(
    folder: Path, name: str, certificates: list[x509.Certificate], key: ec.EllipticCurvePrivateKey
) -> tuple[Path, Path]:
    cert_path, key_path = folder / f"{name}.crt", folder / f"{name}.key"
    pem = b"".join(c.public_bytes(serialization.Encoding.PEM) for c in certificates)
    cert_path.write_bytes(pem)
    key_path.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    return cert_path, key_path


@pytest.fixture(scope="module")
def pair(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    return write_certificate(tmp_path_factory.mktemp("certs"))


@pytest.fixture(scope="module")
def secure(tmp_path_factory: pytest.TempPathFactory, pair: tuple[Path, Path]) -> Iterator[Server]:
    cert, key = pair
    trust = ssl.create_default_context(cafile=str(cert))
    server = start_server(
        tmp_path_factory.mktemp("tls"),
        *("--tls-cert", str(cert), "--tls-key", str(key)),
        token=TOKEN,
        tls=trust,
    )
    yield server
    server.stop()


def test_the_otel_exporters_send_over_tls(secure: Server, pair: tuple[Path, Path]) -> None:
    cert = pair[0]
    auth = {"authorization": f"Bearer {TOKEN}"}
    over_http, over_grpc = adk_like_spans(2, seed=70), adk_like_spans(2, seed=71)
    assert secure.traces_url.startswith("https://127.0.0.1:")
    http_exporter = HttpExporter(
        endpoint=secure.traces_url, certificate_file=str(cert), headers=auth, timeout=30
    )
    assert http_exporter.export(over_http) is SpanExportResult.SUCCESS
    credentials = grpc.ssl_channel_credentials(root_certificates=cert.read_bytes())
    grpc_exporter = GrpcExporter(
        endpoint=f"https://{secure.grpc_target}", credentials=credentials, headers=auth, timeout=30
    )
    assert grpc_exporter.export(over_grpc) is SpanExportResult.SUCCESS
    stored = set(secure.ids())
    assert ids_of(over_http) | ids_of(over_grpc) <= stored


def test_plain_text_is_refused_on_both_ports(secure: Server) -> None:
    with pytest.raises((http.client.HTTPException, OSError)):
        request(secure.port, "GET", "/health", None, {}, 10)
    message = otlp_request(adk_like_spans(1, seed=72))
    with grpc.insecure_channel(secure.grpc_target) as channel:
        stub = TraceServiceStub(channel)  # type: ignore[no-untyped-call]
        with pytest.raises(grpc.RpcError) as refused:
            stub.Export(message, timeout=10, metadata=[("authorization", f"Bearer {TOKEN}")])
        assert refused.value.code() is grpc.StatusCode.UNAVAILABLE
    assert secure.health().status == 200  # and the server goes on serving


def test_the_sidecar_names_https_and_the_certificate(
    secure: Server, pair: tuple[Path, Path]
) -> None:
    sidecar = json.loads(secure.db.with_name(secure.db.name + ".serve.json").read_text())
    assert sidecar["url"] == secure.url
    assert sidecar["tls_cert"] == str(pair[0].resolve())


def sql_cli(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    environ = {k: v for k, v in os.environ.items() if not k.startswith(("TRACEGRADE_", "SSL_"))}
    return subprocess.run(
        [TRACEGRADE, "sql", "-f", "json", *args],
        capture_output=True, text=True, env={**environ, **env}, timeout=60,
    )  # fmt: skip


def test_sql_reaches_a_tls_serve(secure: Server, pair: tuple[Path, Path]) -> None:
    query = "SELECT 41 + 1 AS answer"
    token = {"TRACEGRADE_TOKEN": TOKEN}
    trusted = sql_cli(
        "--server", secure.url, query, env={**token, "TRACEGRADE_CA_CERT": str(pair[0])}
    )
    assert trusted.returncode == 0, trusted.stderr
    assert json.loads(trusted.stdout) == [{"answer": 42}]
    # Found through the sidecar, which names the certificate: nothing to configure.
    found = sql_cli("--db", str(secure.db), query, env=token)
    assert found.returncode == 0, found.stderr
    assert json.loads(found.stdout) == [{"answer": 42}]
    untrusted = sql_cli("--server", secure.url, query, env=token)
    assert untrusted.returncode != 0
    assert "CERTIFICATE_VERIFY_FAILED" in untrusted.stderr
    assert untrusted.stderr.count("\n") == 1
    assert "Traceback" not in untrusted.stderr


def test_the_sidecar_trusts_its_certificate_only(secure: Server, tmp_path: Path) -> None:
    """Another certificate for the same names, put in the sidecar, is not let through."""
    sidecar = secure.db.with_name(secure.db.name + ".serve.json")
    original = sidecar.read_text()
    other, _ = write_certificate(tmp_path, "other")
    try:
        sidecar.write_text(json.dumps({**json.loads(original), "tls_cert": str(other)}))
        done = sql_cli("--db", str(secure.db), "SELECT 1", env={"TRACEGRADE_TOKEN": TOKEN})
    finally:
        sidecar.write_text(original)
    assert done.returncode != 0
    assert "is locked by process" in done.stderr


def test_the_sign_in_cookie_is_secure_over_tls(secure: Server) -> None:
    reply = request(secure.port, "GET", f"/?token={TOKEN}", None, {}, 10, secure.tls)
    assert reply.status == 303
    attributes = [a.strip() for a in reply.headers["set-cookie"].split(";")]
    assert {"Secure", "HttpOnly", "SameSite=Strict"} <= set(attributes)
    cookie = reply.headers["set-cookie"].split(";")[0]
    assert request(secure.port, "GET", "/", None, {"cookie": cookie}, 30, secure.tls).status == 200


def test_the_sidecar_trusts_an_issued_certificate_whatever_its_name(workdir: Path) -> None:
    """A CA's certificate for another name: a --server URL checks the name and refuses it;
    the sidecar's client trusts that very certificate (the first of the chain file)."""
    chain, key, ca = write_issued_certificate(workdir)
    trust = ssl.create_default_context(cafile=str(ca))
    trust.check_hostname = False
    server = start_server(
        workdir, "--tls-cert", str(chain), "--tls-key", str(key), token=TOKEN, tls=trust
    )
    try:
        token = {"TRACEGRADE_TOKEN": TOKEN}
        found = sql_cli("--db", str(server.db), "SELECT 42 AS answer", env=token)
        by_url = sql_cli(
            "--server", server.url, "SELECT 1", env={**token, "TRACEGRADE_CA_CERT": str(ca)}
        )
    finally:
        server.stop()
    assert found.returncode == 0, found.stderr
    assert json.loads(found.stdout) == [{"answer": 42}]
    assert by_url.returncode != 0
    assert "mismatch, certificate is not valid for '127.0.0.1'" in by_url.stderr


@pytest.mark.parametrize("secure", [False, True])
def test_the_cookie_is_secure_exactly_with_tls(secure: bool) -> None:
    head = RequestHead("GET", "/", {}, "/", f"token={TOKEN}")
    signed_in = PageAuth(TOKEN, secure=secure).check(head, bearer_ok=False)
    assert signed_in is not None
    assert signed_in.status == 303
    attributes = {a.strip() for a in dict(signed_in.headers)["set-cookie"].split(";")[1:]}
    expected = {"Path=/", "HttpOnly", "SameSite=Strict"}
    assert attributes == (expected | {"Secure"} if secure else expected)


def serve_fails(workdir: Path, *args: str) -> str:
    db = workdir / "never.duckdb"
    done = subprocess.run(
        [TRACEGRADE, "serve", "--db", str(db), "--port", str(free_port()), "--grpc-port", "0",
         *args],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr
    assert done.stderr.count("\n") == 1
    assert not db.exists()
    return done.stderr


def test_bad_tls_files_stop_the_start_with_one_line(workdir: Path, pair: tuple[Path, Path]) -> None:
    cert, key = pair
    assert "go together" in serve_fails(workdir, "--tls-cert", str(cert))
    assert "go together" in serve_fails(workdir, "--tls-key", str(key))
    missing = workdir / "missing.crt"
    assert f"--tls-cert {missing}: cannot read it" in serve_fails(
        workdir, "--tls-cert", str(missing), "--tls-key", str(key)
    )
    _, other_key = write_certificate(workdir, "other")
    mismatched = serve_fails(workdir, "--tls-cert", str(cert), "--tls-key", str(other_key))
    assert "not a PEM certificate and its matching unencrypted private key" in mismatched
    swapped = serve_fails(workdir, "--tls-cert", str(key), "--tls-key", str(cert))
    assert "not a PEM certificate" in swapped
