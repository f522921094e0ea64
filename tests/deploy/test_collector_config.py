"""Static checks of the OpenTelemetry Collector configs in collector-config/.

The collector is not run here. These tests check the structure the collector would reject, or
that would quietly lose data: undefined or unused components, processor order, sampling, and the
exporter settings that tracegrade serve's contract relies on.
"""

from __future__ import annotations

import re
from typing import Any

KINDS = ("receivers", "processors", "exporters")
SAMPLING_PROCESSOR_TYPES = {"tail_sampling", "probabilistic_sampler"}
# An ADK turn (several model and tool calls) routinely runs tens of seconds; below this, tail
# sampling decides before the root span (where a raised error lands) has been exported.
MIN_DECISION_WAIT_SECONDS = 30

Config = dict[str, Any]


def component_type(component_id: str) -> str:
    """`otlphttp/tracegrade` -> `otlphttp` (a component id is `type[/name]`)."""
    return component_id.split("/", 1)[0]


def pipelines(config: Config) -> dict[str, Config]:
    found: dict[str, Config] = config["service"]["pipelines"]
    return found


def traces_pipelines(config: Config) -> dict[str, Config]:
    found = {k: v for k, v in pipelines(config).items() if component_type(k) == "traces"}
    assert found, "no traces pipeline"
    return found


def components_of_type(config: Config, kind: str, type_: str) -> dict[str, Any]:
    return {
        cid: spec or {}
        for cid, spec in (config.get(kind) or {}).items()
        if component_type(cid) == type_
    }


def traces_exporters(config: Config, type_: str) -> dict[str, Config]:
    """The exporters of the given type that some traces pipeline sends to."""
    used = {e for p in traces_pipelines(config).values() for e in p["exporters"]}
    found = {
        cid: spec
        for cid, spec in components_of_type(config, "exporters", type_).items()
        if cid in used
    }
    assert found, f"no {type_} exporter in a traces pipeline"
    return found


def seconds(duration: str) -> float:
    """A Go duration such as `60s`, `1m30s` or `500ms`, in seconds."""
    if str(duration) == "0":
        return 0.0
    units = {"ms": 0.001, "s": 1, "m": 60, "h": 3600}
    parts = re.findall(r"(\d+(?:\.\d+)?)(ms|s|m|h)", duration)
    assert "".join(n + u for n, u in parts) == duration, f"bad duration {duration!r}"
    return sum(float(n) * units[u] for n, u in parts)


def test_every_pipeline_component_is_defined(config: Config) -> None:
    for pipeline_id, pipeline in pipelines(config).items():
        assert pipeline.get("receivers"), f"{pipeline_id}: no receivers"
        assert pipeline.get("exporters"), f"{pipeline_id}: no exporters"
        for kind in KINDS:
            undefined = set(pipeline.get(kind, [])) - set(config.get(kind) or {})
            assert not undefined, f"{pipeline_id} uses undefined {kind}: {sorted(undefined)}"
    undefined = set(config["service"].get("extensions", [])) - set(config.get("extensions") or {})
    assert not undefined, f"service enables undefined extensions: {sorted(undefined)}"


def test_every_defined_component_is_used(config: Config) -> None:
    for kind in KINDS:
        used = {c for p in pipelines(config).values() for c in p.get(kind, [])}
        unused = set(config.get(kind) or {}) - used
        assert not unused, f"{kind} defined but in no pipeline: {sorted(unused)}"
    unused = set(config.get("extensions") or {}) - set(config["service"].get("extensions", []))
    assert not unused, f"extensions defined but not enabled in service: {sorted(unused)}"


def test_traces_pipelines_start_with_memory_limiter_and_end_with_batch(config: Config) -> None:
    for pipeline_id, pipeline in traces_pipelines(config).items():
        types = [component_type(p) for p in pipeline.get("processors", [])]
        assert types[:1] == ["memory_limiter"], f"{pipeline_id}: processors {types}"
        assert types[-1:] == ["batch"], f"{pipeline_id}: processors {types}"


def test_memory_limiter_has_an_interval_and_a_soft_limit(config: Config) -> None:
    for cid, spec in components_of_type(config, "processors", "memory_limiter").items():
        # check_interval defaults to 0s, which disables the limiter altogether.
        assert seconds(spec["check_interval"]) > 0, cid
        assert 0 < spec["spike_limit_mib"] < spec["limit_mib"], cid


def test_otlp_receiver_listens_on_all_interfaces_at_the_otlp_ports(config: Config) -> None:
    # The collector's defaults bind localhost, which is unreachable from outside its container.
    (otlp,) = components_of_type(config, "receivers", "otlp").values()
    assert otlp["protocols"]["grpc"]["endpoint"] == "0.0.0.0:4317"
    assert otlp["protocols"]["http"]["endpoint"] == "0.0.0.0:4318"


def test_exporter_sends_gzip_protobuf_to_tracegrade_and_retries(config: Config) -> None:
    for cid, spec in traces_exporters(config, "otlphttp").items():
        assert spec["endpoint"].startswith("http://"), cid
        assert spec["compression"] == "gzip", cid
        assert spec["encoding"] == "proto", cid
        # tracegrade answers 429/503 + Retry-After under overload: retry, never drop.
        assert spec["retry_on_failure"]["enabled"] is True, cid
        max_elapsed = seconds(spec["retry_on_failure"].get("max_elapsed_time", "300s"))
        assert max_elapsed == 0 or max_elapsed >= 300, f"{cid}: gives up after {max_elapsed}s"
        assert spec["sending_queue"]["enabled"] is True, cid


def test_exporter_authenticates_with_the_required_bearer_token(config: Config) -> None:
    extensions = config.get("extensions") or {}
    for cid, spec in traces_exporters(config, "otlphttp").items():
        authenticator = spec["auth"]["authenticator"]
        assert component_type(authenticator) == "bearertokenauth", cid
        assert authenticator in config["service"]["extensions"], f"{authenticator} not enabled"
        token = extensions[authenticator]["token"]
        # No default: docker-compose.yml requires the variable, and a placeholder token would
        # be refused by serve, which listens on the compose network and requires one.
        assert token == "${env:TRACEGRADE_TOKEN}", token


def test_health_check_extension_is_enabled_on_all_interfaces(config: Config) -> None:
    (health_id, health) = next(
        iter(components_of_type(config, "extensions", "health_check").items())
    )
    assert health_id in config["service"]["extensions"]
    assert health["endpoint"].startswith("0.0.0.0:")


def test_production_keeps_every_error_and_a_share_by_trace_id(
    collector_configs: dict[str, Config],
) -> None:
    config = collector_configs["production.yaml"]
    for pipeline_id, pipeline in traces_pipelines(config).items():
        samplers = [p for p in pipeline["processors"] if component_type(p) == "tail_sampling"]
        assert len(samplers) == 1, f"{pipeline_id}: expected one tail_sampling, got {samplers}"
        spec = config["processors"][samplers[0]]
        assert seconds(spec["decision_wait"]) >= MIN_DECISION_WAIT_SECONDS
        by_type: dict[str, list[Config]] = {}
        for policy in spec["policies"]:
            by_type.setdefault(policy["type"], []).append(policy)
        (errors,) = by_type["status_code"]
        assert errors["status_code"]["status_codes"] == ["ERROR"]
        (share,) = by_type["probabilistic"]
        assert 0 < share["probabilistic"]["sampling_percentage"] < 100
        assert set(by_type) == {"status_code", "probabilistic"}, f"extra policies: {set(by_type)}"


def test_eval_config_samples_nothing(collector_configs: dict[str, Config]) -> None:
    config = collector_configs["eval.yaml"]
    defined = {component_type(p) for p in config.get("processors") or {}}
    assert not defined & SAMPLING_PROCESSOR_TYPES
    for pipeline in pipelines(config).values():
        used = {component_type(p) for p in pipeline.get("processors", [])}
        assert not used & SAMPLING_PROCESSOR_TYPES


def test_eval_differs_from_production_only_by_sampling(
    collector_configs: dict[str, Config],
) -> None:
    production, evaluation = collector_configs["production.yaml"], collector_configs["eval.yaml"]
    for section in ("extensions", "receivers", "exporters"):
        assert evaluation[section] == production[section], section
    assert evaluation["service"]["extensions"] == production["service"]["extensions"]

    sampling = {
        p for p in production["processors"] if component_type(p) in SAMPLING_PROCESSOR_TYPES
    }
    assert set(evaluation["processors"]) == set(production["processors"]) - sampling
    assert evaluation["processors"]["memory_limiter"] == production["processors"]["memory_limiter"]

    unsampled = {
        pid: {k: [c for c in v if c not in sampling] for k, v in p.items()}
        for pid, p in pipelines(production).items()
    }
    assert pipelines(evaluation) == unsampled


def test_every_section_and_component_is_commented(config_name: str, config_text: str) -> None:
    """Each top-level section and each component in it has a comment saying what it is for."""
    lines = config_text.splitlines()
    uncommented = []
    section = ""
    for i, line in enumerate(lines):
        top = re.match(r"^([A-Za-z_]\w*):", line)
        if top:
            section = top.group(1)
        # `service:` holds wiring (extensions list, pipelines), not components.
        elif section == "service" or not re.match(r"^ {2}[A-Za-z_][\w/]*:", line):
            continue
        previous = next((p.strip() for p in reversed(lines[:i]) if p.strip()), "")
        if not previous.startswith("#") and "#" not in line:
            uncommented.append(line.strip())
    assert not uncommented, f"{config_name}: no comment above {uncommented}"
