"""OTLP/gRPC: `TraceService/Export` on its own port, answering as the OTLP spec says.

grpcio inflates gzip (within `grpc.max_receive_message_length`) and parses the request on
its worker threads; from there the path is the HTTP one: the same admission, decoder,
commit queue and acknowledgement after commit. The parse is ours, not the generated
stub's: grpcio answers a request its deserializer cannot read with INTERNAL, where OTLP
says INVALID_ARGUMENT (INTERNAL would make a sender retry bad data).

The token is checked on the call's metadata, before grpcio is asked for the message: a
unary handler would receive the whole body (up to the limit) before our code ran, so a
call without the token gets a handler that answers UNAUTHENTICATED and never reads.
"""

from __future__ import annotations

from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any, NoReturn

import grpc
from google.protobuf.any_pb2 import Any as AnyMessage
from google.rpc.error_details_pb2 import RetryInfo
from google.rpc.status_pb2 import Status
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)

from tracegrade.server.admission import Overloaded, Refused
from tracegrade.server.payload import Media, decode, export_response, parse
from tracegrade.server.receiver import Receiver

_WORKERS = 4
# Beyond the workers, requests wait in grpcio's queue holding their bytes: keep it short.
_MAX_CONCURRENT_RPCS = 16
_COMMIT_WAIT_S = 120.0
_EXPORT = "/opentelemetry.proto.collector.trace.v1.TraceService/Export"


def _parse(data: bytes) -> ExportTraceServiceRequest | Refused:
    """The request, or why it is not one (handed to `Export`, which answers for it)."""
    try:
        return parse(data, Media.PROTOBUF)
    except Refused as exc:
        return exc


class TraceService:
    def __init__(self, receiver: Receiver) -> None:
        self._receiver = receiver

    def Export(  # the RPC's name, as the OTLP service defines it
        self, request: ExportTraceServiceRequest | Refused, context: grpc.ServicerContext
    ) -> ExportTraceServiceResponse:
        try:
            if isinstance(request, Refused):
                raise request
            response = self._export(request)
        except Overloaded as exc:
            self._unavailable(context, exc)
        except Refused as exc:
            self._abort(context, exc.status, grpc.StatusCode.INVALID_ARGUMENT, str(exc))
        self._receiver.stats.answered(200)
        return response

    def refuse(self, _requests: Iterator[object], context: grpc.ServicerContext) -> NoReturn:
        """The handler of a call without the token: it never takes a message from the
        iterator, so grpcio never receives or parses the body."""
        self._abort(context, 401, grpc.StatusCode.UNAUTHENTICATED, "missing or wrong token")

    def _export(self, request: ExportTraceServiceRequest) -> ExportTraceServiceResponse:
        receiver = self._receiver
        overloaded = receiver.overloaded()
        if overloaded:
            raise overloaded
        receiver.begin()
        try:
            decoded = decode(request, "otlp_grpc", receiver.config.max_spans_per_request)
            receiver.store(decoded, request.ByteSize()).result(timeout=_COMMIT_WAIT_S)
        except TimeoutError:
            raise Overloaded("the commit is taking too long: retry later", status=503) from None
        finally:
            receiver.end()
        return export_response(decoded)

    def _unavailable(self, context: grpc.ServicerContext, exc: Overloaded) -> NoReturn:
        """UNAVAILABLE with a RetryInfo detail: the OTLP exporters wait that long and resend."""
        info = RetryInfo()
        info.retry_delay.seconds = exc.retry_after_s
        detail = AnyMessage()
        detail.Pack(info)
        status = Status(
            code=grpc.StatusCode.UNAVAILABLE.value[0], message=str(exc), details=[detail]
        )
        context.set_trailing_metadata((("grpc-status-details-bin", status.SerializeToString()),))
        self._abort(context, exc.status, grpc.StatusCode.UNAVAILABLE, str(exc))

    def _abort(
        self, context: grpc.ServicerContext, status: int, code: Any, message: str
    ) -> NoReturn:
        self._receiver.stats.answered(status)
        context.abort(code, message)
        raise AssertionError("grpc's abort() returned")  # it raises; this satisfies the type


class _Handlers:  # a grpc.GenericRpcHandler (grpcio asks only for `service`)
    """Picks the handler from the call's method and metadata, before any message is read."""

    def __init__(self, service: TraceService, receiver: Receiver) -> None:
        self._receiver = receiver
        self._export = grpc.unary_unary_rpc_method_handler(
            service.Export,
            request_deserializer=_parse,
            response_serializer=ExportTraceServiceResponse.SerializeToString,
        )
        # The wire does not tell unary from streaming: a stream handler lets us answer
        # before asking for the message a unary handler would receive first.
        self._refuse = grpc.stream_unary_rpc_method_handler(service.refuse)

    def service(self, details: grpc.HandlerCallDetails) -> grpc.RpcMethodHandler | None:
        if details.method != _EXPORT:
            return None  # grpcio answers UNIMPLEMENTED
        authorization = dict(details.invocation_metadata).get("authorization", "")
        return self._export if self._receiver.authorized(str(authorization)) else self._refuse


def start_grpc(
    receiver: Receiver, host: str, port: int, credentials: grpc.ServerCredentials | None
) -> grpc.Server:
    """Listen on host:port, over TLS with `credentials` (raises OSError if that is
    impossible), and start serving."""
    server = grpc.server(
        ThreadPoolExecutor(max_workers=_WORKERS, thread_name_prefix="tracegrade-grpc"),
        maximum_concurrent_rpcs=_MAX_CONCURRENT_RPCS,
        options=[
            ("grpc.max_receive_message_length", receiver.config.max_body_bytes),
            # Without this, Linux lets a second server bind the same port and steal requests.
            ("grpc.so_reuseport", 0),
        ],
    )
    server.add_generic_rpc_handlers((_Handlers(TraceService(receiver), receiver),))
    address = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
    try:
        if credentials is None:
            bound = server.add_insecure_port(address)
        else:
            bound = server.add_secure_port(address, credentials)
    except RuntimeError as exc:
        raise OSError(f"cannot listen on {address} for OTLP/gRPC: {exc}") from None
    if not bound:
        raise OSError(f"cannot listen on {address} for OTLP/gRPC (is the port in use?)")
    server.start()
    return server
