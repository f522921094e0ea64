-- One row per OpenTelemetry span, as it arrived: lossless and OTel-shaped.
-- Key (trace_id, span_id): a span delivered twice is stored once (the first copy wins).
CREATE TABLE spans (
    trace_id       VARCHAR NOT NULL,   -- 32 lowercase hex digits
    span_id        VARCHAR NOT NULL,   -- 16 lowercase hex digits
    parent_span_id VARCHAR,            -- NULL for a root span
    name           VARCHAR NOT NULL,
    kind           VARCHAR NOT NULL,   -- INTERNAL, SERVER, CLIENT, PRODUCER, CONSUMER, UNSPECIFIED
    start_ns       BIGINT  NOT NULL,   -- Unix epoch nanoseconds
    end_ns         BIGINT  NOT NULL,
    status_code    VARCHAR NOT NULL,   -- UNSET, OK, ERROR
    status_message VARCHAR,
    service_name   VARCHAR,            -- resource attribute service.name
    scope_name     VARCHAR,            -- instrumentation scope, e.g. gcp.vertex.agent
    scope_version  VARCHAR,
    attributes     JSON    NOT NULL,   -- {"key": value}: strings, numbers, booleans, lists
    resource       JSON    NOT NULL,   -- resource attributes, same shape
    events         JSON    NOT NULL,   -- [{"name", "time_ns", "attributes"}]
    links          JSON    NOT NULL,   -- [{"trace_id", "span_id", "attributes"}]
    ingested_at    TIMESTAMPTZ NOT NULL DEFAULT current_timestamp,
    source         VARCHAR NOT NULL,   -- exporter, otlp_http, otlp_grpc or file
    PRIMARY KEY (trace_id, span_id)
);
