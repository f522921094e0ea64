-- spans: one row per OpenTelemetry span, as it arrived: lossless and OTel-shaped. The key
-- (trace_id, span_id) means a span delivered twice is stored once (the first copy wins).
--
-- Columns:
--   trace_id         32 lowercase hex digits
--   span_id          16 lowercase hex digits
--   parent_span_id   the parent span, NULL for a root
--   name             span name
--   kind             INTERNAL, SERVER, CLIENT, PRODUCER, CONSUMER or UNSPECIFIED
--   start_ns         start, Unix epoch nanoseconds
--   end_ns           end, Unix epoch nanoseconds
--   status_code      UNSET, OK or ERROR
--   status_message   the status description
--   service_name     resource attribute service.name
--   scope_name       instrumentation scope, e.g. gcp.vertex.agent
--   scope_version    instrumentation scope version
--   attributes       {"key": value}: strings, numbers, booleans, lists (JSON)
--   resource         resource attributes, same shape (JSON)
--   events           [{"name", "time_ns", "attributes"}] (JSON)
--   links            [{"trace_id", "span_id", "attributes"}] (JSON)
--   ingested_at      when tracegrade stored it
--   source           how it arrived: exporter, otlp_http, otlp_grpc or file
CREATE TABLE spans (
    trace_id       VARCHAR NOT NULL,
    span_id        VARCHAR NOT NULL,
    parent_span_id VARCHAR,
    name           VARCHAR NOT NULL,
    kind           VARCHAR NOT NULL,
    start_ns       BIGINT  NOT NULL,
    end_ns         BIGINT  NOT NULL,
    status_code    VARCHAR NOT NULL,
    status_message VARCHAR,
    service_name   VARCHAR,
    scope_name     VARCHAR,
    scope_version  VARCHAR,
    attributes     JSON    NOT NULL,
    resource       JSON    NOT NULL,
    events         JSON    NOT NULL,
    links          JSON    NOT NULL,
    ingested_at    TIMESTAMPTZ NOT NULL DEFAULT current_timestamp,
    source         VARCHAR NOT NULL,
    PRIMARY KEY (trace_id, span_id)
);
