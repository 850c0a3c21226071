"""k8s/: the base, each component and each overlay rendered by kustomize (kubectl's) and
validated offline: built-in kinds against the Kubernetes schemas of kubernetes-validate
(strict: no unknown field), the KEDA and Prometheus-operator objects against the CRD schemas
kept in k8s/schemas; then what the platform needs of them."""

from __future__ import annotations

import copy
import json
import re
from functools import cache
from pathlib import Path
from typing import Any

import jsonschema
import kubernetes_validate
import pytest
import yaml
from hebei_monitoring.boards import BOARDS
from hebei_monitoring.installation import load_site

from hebei.bots.config import BotsConfig
from hebei.bots.policies import POLICIES
from hebei.bots.worker import worker_argv
from hebei.common.config import DEFAULT_PORTS
from tests.deploy.conftest import K8S, kustomize

KUBERNETES_VERSIONS = ("1.29.0", "1.33.0")  # native gRPC probes: GA since 1.27
RENDERS = {
    "base": K8S / "base",
    "keda-bots": K8S / "components" / "keda-bots",
    "monitoring": K8S / "components" / "monitoring",
    "grafana-dashboards": K8S / "components" / "grafana-dashboards",
    "network-policies": K8S / "components" / "network-policies",
    "dev": K8S / "overlays" / "dev",
    "prod": K8S / "overlays" / "prod",
}
OURS = (*(f"hebei-{name}" for name in DEFAULT_PORTS), "hebei-bots", "hebei-web")


@cache
def rendered(name: str) -> tuple[dict[str, Any], ...]:
    return tuple(kustomize(RENDERS[name]))


@cache
def crd_schemas() -> dict[str, dict]:
    out = {}
    for path in sorted((K8S / "schemas").glob("*.json")):
        schema = json.loads(path.read_text())
        out[schema["$comment"].split(":", 1)[0]] = schema
    return out


def kind_of(doc: dict) -> str:
    return f"{doc['apiVersion']}/{doc['kind']}"


def by_kind(docs: tuple[dict, ...], kind: str) -> dict[str, dict]:
    return {d["metadata"]["name"]: d for d in docs if d["kind"] == kind}


def workloads(docs: tuple[dict, ...]) -> dict[str, dict]:
    """The Deployments and StatefulSets (the table engine's) by name."""
    return {**by_kind(docs, "Deployment"), **by_kind(docs, "StatefulSet")}


def validation_errors(doc: dict, version: str) -> list[str]:
    schema = crd_schemas().get(kind_of(doc))
    if schema is not None:
        validator = jsonschema.Draft202012Validator(schema)
        return [f"{e.json_path}: {e.message}" for e in validator.iter_errors(doc)]
    try:
        kubernetes_validate.validate(doc, version, strict=True)
    except kubernetes_validate.ValidationError as exc:
        return [f"{'.'.join(map(str, exc.path))}: {exc.message}"]
    except kubernetes_validate.SchemaNotFoundError as exc:
        return [f"no schema: {exc}"]
    return []


@pytest.mark.parametrize("version", KUBERNETES_VERSIONS)
@pytest.mark.parametrize("name", sorted(RENDERS))
def test_every_render_is_valid(name: str, version: str):
    docs = rendered(name)
    assert docs
    errors = {
        f"{d['kind']}/{d['metadata']['name']}": validation_errors(d, version)
        for d in docs
        if validation_errors(d, version)
    }
    assert errors == {}


def test_strict_validation_refuses_an_unknown_field():
    deployment = copy.deepcopy(by_kind(rendered("base"), "Deployment")["hebei-ledger"])
    deployment["spec"]["template"]["spec"]["containers"][0]["readinessProbe"]["grpcc"] = {}
    assert validation_errors(deployment, KUBERNETES_VERSIONS[-1])
    scaled = copy.deepcopy(by_kind(rendered("keda-bots"), "ScaledObject")["hebei-bots"])
    scaled["spec"]["minReplicas"] = scaled["spec"].pop("minReplicaCount")
    assert validation_errors(scaled, KUBERNETES_VERSIONS[-1])
    rule = copy.deepcopy(next(iter(by_kind(rendered("monitoring"), "PrometheusRule").values())))
    rule["spec"]["groups"][0]["rules"][0]["exprr"] = "up"
    assert validation_errors(rule, KUBERNETES_VERSIONS[-1])


def test_the_crd_schemas_cover_every_custom_kind_rendered():
    kinds = {kind_of(d) for name in RENDERS for d in rendered(name)}
    custom = {k for k in kinds if k.split("/")[0].endswith((".sh", ".coreos.com"))}
    assert custom and custom <= set(crd_schemas())


def test_only_secret_references_no_secret_values():
    for name in RENDERS:
        docs = rendered(name)
        assert by_kind(docs, "Secret") == {}, name
        for doc in docs:
            text = yaml.safe_dump(doc)
            assert "change-me" not in text and "PASSWORD@" not in text, name
    for container in containers(rendered("prod")):
        for env in container.get("env", []):
            secret = ("TOKEN", "URL", "PASSWORD", "DSN", "SOURCE_NAME")
            if any(word in env["name"] for word in secret):
                assert env["valueFrom"]["secretKeyRef"]["name"] == "hebei-secrets", env


def pod_specs(docs: tuple[dict, ...]) -> dict[str, dict]:
    out = {}
    for doc in docs:
        if doc["kind"] in ("Deployment", "StatefulSet"):
            out[doc["metadata"]["name"]] = doc["spec"]["template"]["spec"]
        elif doc["kind"] == "CronJob":
            out[doc["metadata"]["name"]] = doc["spec"]["jobTemplate"]["spec"]["template"]["spec"]
    return out


def containers(docs: tuple[dict, ...]) -> list[dict]:
    return [c for spec in pod_specs(docs).values() for c in spec["containers"]]


@pytest.mark.parametrize("name", ["base", "dev", "prod"])
def test_pods_are_locked_down(name: str):
    for pod, spec in pod_specs(rendered(name)).items():
        assert spec["securityContext"]["runAsNonRoot"] is True, pod
        assert spec["enableServiceLinks"] is False, pod  # no HEBEI_TABLE_PORT=tcp://...
        assert spec["automountServiceAccountToken"] is False, pod
        for container in spec["containers"]:
            security = container["securityContext"]
            assert security["readOnlyRootFilesystem"] is True, pod
            assert security["allowPrivilegeEscalation"] is False, pod
            assert security["capabilities"]["drop"] == ["ALL"], pod
            assert {"cpu", "memory"} <= set(container["resources"]["requests"]), pod
            assert {"cpu", "memory"} <= set(container["resources"]["limits"]), pod


def test_services_have_native_grpc_probes_and_named_ports():
    docs = rendered("base")
    deployments = workloads(docs)
    services = by_kind(docs, "Service")
    for name, (grpc_port, metrics_port) in DEFAULT_PORTS.items():
        spec = deployments[f"hebei-{name}"]["spec"]["template"]["spec"]
        (container,) = spec["containers"]
        assert container["command"] == ["python", "-m", f"hebei.{name}"]
        ports = {p["name"]: p["containerPort"] for p in container["ports"]}
        assert ports == {"grpc": grpc_port, "metrics": metrics_port}
        secrets = {
            e["name"]: e["valueFrom"]["secretKeyRef"]["key"]
            for e in container["env"]
            if "secretKeyRef" in e.get("valueFrom", {})
        }  # listening on 0.0.0.0: a service token of its own, distinct from the operator's
        assert secrets["HEBEI_SERVICE_TOKEN"] != secrets["HEBEI_OPERATOR_TOKEN"]
        for probe in ("startupProbe", "readinessProbe", "livenessProbe"):
            assert container[probe]["grpc"] == {"port": grpc_port}, (name, probe)
        service_ports = {p["name"]: p["port"] for p in services[f"hebei-{name}"]["spec"]["ports"]}
        assert service_ports == ports
    # the engine's replicas run together (shards by advisory locks): one pod at a time
    table = by_kind(docs, "StatefulSet")["hebei-table"]["spec"]
    assert table["updateStrategy"]["type"] == "RollingUpdate"
    assert table["serviceName"] == "hebei-table-headless"
    headless = services["hebei-table-headless"]["spec"]
    assert headless["clusterIP"] == "None" and headless["publishNotReadyAddresses"] is True
    assert {p["name"]: p["port"] for p in headless["ports"]} == {
        "grpc": DEFAULT_PORTS["table"][0],
        "metrics": DEFAULT_PORTS["table"][1],
    }
    assert "hebei.dev/scrape" not in services["hebei-table-headless"]["metadata"]["labels"]


def autoscaled(docs: tuple[dict, ...]) -> dict[str, int]:
    """Deployment -> the fewest replicas its autoscaler (HPA or KEDA) keeps."""
    out = {}
    for hpa in by_kind(docs, "HorizontalPodAutoscaler").values():
        out[hpa["spec"]["scaleTargetRef"]["name"]] = hpa["spec"].get("minReplicas", 1)
    for scaled in by_kind(docs, "ScaledObject").values():
        out[scaled["spec"]["scaleTargetRef"]["name"]] = scaled["spec"]["minReplicaCount"]
    return out


@pytest.mark.parametrize("name", ["base", "dev", "prod"])
def test_no_replicas_where_an_autoscaler_owns_the_count(name: str):
    docs = rendered(name)
    deployments = by_kind(docs, "Deployment")
    owned = autoscaled(docs)
    assert "hebei-botservice" in owned
    for target in owned:
        assert "replicas" not in deployments[target]["spec"], target  # reset at every apply


@pytest.mark.parametrize("name", ["base", "dev", "prod"])
def test_disruption_budgets_protect_replicas_and_never_block_a_single_pod(name: str):
    docs = rendered(name)
    deployments = workloads(docs)
    owned = autoscaled(docs)
    budgets = by_kind(docs, "PodDisruptionBudget")
    for budget in budgets.values():
        target = budget["spec"]["selector"]["matchLabels"]["app.kubernetes.io/name"]
        fewest = owned.get(target, deployments[target]["spec"].get("replicas", 1))
        if "minAvailable" in budget["spec"]:
            assert 1 <= budget["spec"]["minAvailable"] < fewest, target  # a drain can proceed
        else:  # autoscaled, or enough replicas that all but one are a majority
            assert budget["spec"]["maxUnavailable"] == 1, target
            assert target in owned or fewest >= 3, target
    single = {n for n, d in deployments.items() if d["spec"].get("replicas", 1) == 1} - set(owned)
    assert not single & {b["spec"]["selector"]["matchLabels"]["app.kubernetes.io/name"]
                         for b in budgets.values()}  # fmt: skip
    if name == "prod":
        assert {
            "hebei-ledger", "hebei-table", "hebei-matchmaking", "hebei-botservice", "hebei-bots"
        } <= set(budgets)  # fmt: skip
        assert budgets["hebei-ledger"]["spec"]["minAvailable"] == 2


def test_replicated_services_spread_over_nodes_and_zones():
    specs = pod_specs(rendered("prod"))
    for name in (
        "hebei-ledger",
        "hebei-table",
        "hebei-matchmaking",
        "hebei-botservice",
        "hebei-bots",
    ):
        constraints = specs[name]["topologySpreadConstraints"]
        keys = {c["topologyKey"] for c in constraints}
        assert keys == {"kubernetes.io/hostname", "topology.kubernetes.io/zone"}, name
        for c in constraints:
            assert c["labelSelector"]["matchLabels"] == {"app.kubernetes.io/name": name}
            # a Deployment's rollout spreads its new pods among themselves; a StatefulSet
            # has no pod-template-hash
            if name != "hebei-table":
                assert c["matchLabelKeys"] == ["pod-template-hash"]
            assert c["maxSkew"] == 1


def env_of(container: dict) -> dict[str, Any]:
    """A container's env: name -> its value, or its valueFrom."""
    return {e["name"]: e.get("value", e.get("valueFrom")) for e in container.get("env", [])}


def test_prod_runs_three_engines_and_two_matchmakings_that_know_who_they_are():
    docs = rendered("prod")
    (table,) = (d for d in docs if d["kind"] == "StatefulSet")
    assert table["metadata"]["name"] == "hebei-table" and table["spec"]["replicas"] == 3
    assert "hebei-table" not in by_kind(docs, "Deployment")
    (engine,) = table["spec"]["template"]["spec"]["containers"]
    env = env_of(engine)
    pod_name = {"fieldRef": {"fieldPath": "metadata.name"}}
    assert env["HEBEI_TABLE_REPLICA_ID"] == pod_name  # hebei-table-0, -1, -2
    assert env["POD_NAMESPACE"] == {"fieldRef": {"fieldPath": "metadata.namespace"}}
    names = [e["name"] for e in engine["env"]]  # $(VAR) sees only the variables before it
    assert names.index("HEBEI_TABLE_ADVERTISE_ADDRESS") > names.index("POD_NAMESPACE")
    assert env["HEBEI_TABLE_ADVERTISE_ADDRESS"] == (
        f"$(HEBEI_TABLE_REPLICA_ID).hebei-table-headless.$(POD_NAMESPACE).svc:"
        f"{DEFAULT_PORTS['table'][0]}"
    )
    matchmaking = workloads(docs)["hebei-matchmaking"]
    assert matchmaking["spec"]["replicas"] == 2
    (container,) = matchmaking["spec"]["template"]["spec"]["containers"]
    env = env_of(container)
    assert env["HEBEI_MATCHMAKING_REPLICA_ID"] == pod_name
    assert env["HEBEI_MATCHMAKING_ADVERTISE_ADDRESS"] == (
        f"$(POD_IP):{DEFAULT_PORTS['matchmaking'][0]}"
    )
    budgets = by_kind(docs, "PodDisruptionBudget")
    assert budgets["hebei-table"]["spec"] == {
        "maxUnavailable": 1,  # of 3: a majority stays up
        "selector": {"matchLabels": {"app.kubernetes.io/name": "hebei-table"}},
    }
    assert budgets["hebei-matchmaking"]["spec"]["minAvailable"] == 1
    # the operators' view samples every engine replica's /metrics, by its pod's name
    config = by_kind(docs, "ConfigMap")["hebei-config"]
    assert config["data"]["HEBEI_WEB_METRICS"] == ",".join(
        f"table-{i}=hebei-table-{i}.hebei-table-headless:{DEFAULT_PORTS['table'][1]}"
        for i in range(3)
    )
    # dev: one of each
    dev = workloads(rendered("dev"))
    assert dev["hebei-table"]["kind"] == "StatefulSet"
    assert (
        dev["hebei-table"]["spec"]["replicas"] == dev["hebei-matchmaking"]["spec"]["replicas"] == 1
    )


def test_the_bot_service_scales_on_cpu_and_reads_matches_from_the_engine():
    for name in ("base", "dev", "prod"):
        docs = rendered(name)
        (hpa,) = by_kind(docs, "HorizontalPodAutoscaler").values()
        target = hpa["spec"]["scaleTargetRef"]
        assert target["kind"] == "Deployment" and target["name"] == "hebei-botservice"
        assert target["name"] in by_kind(docs, "Deployment")
        (metric,) = hpa["spec"]["metrics"]
        assert metric["resource"]["name"] == "cpu"  # a share of the request, which is set
        spec = pod_specs(docs)["hebei-botservice"]
        assert spec["containers"][0]["resources"]["requests"]["cpu"]
        assert 1 <= hpa["spec"]["minReplicas"] < hpa["spec"]["maxReplicas"]
    (hpa,) = by_kind(rendered("prod"), "HorizontalPodAutoscaler").values()
    assert hpa["spec"]["minReplicas"] >= 2  # one pod may be drained at a time (its budget)
    (config,) = by_kind(rendered("base"), "ConfigMap").values()
    table = f"hebei-table:{DEFAULT_PORTS['table'][0]}"
    assert config["data"]["HEBEI_BOTSERVICE_TABLE_ADDRESS"] == table
    (container,) = pod_specs(rendered("base"))["hebei-botservice"]["containers"]
    secrets = {e["name"] for e in container["env"] if "valueFrom" in e}
    assert secrets == {"HEBEI_OPERATOR_TOKEN", "HEBEI_SERVICE_TOKEN"}  # no database, no broker


def test_the_web_gateway_is_served_over_http_with_probes_on_its_health_route():
    from hebei.web.config import DEFAULT_PORT

    docs = rendered("base")
    (config,) = by_kind(docs, "ConfigMap").values()
    port = int(config["data"]["HEBEI_WEB_PORT"])
    assert port == DEFAULT_PORT
    (container,) = pod_specs(docs)["hebei-web"]["containers"]
    assert container["command"] == ["python", "-m", "hebei.web"]
    metrics_port = int(config["data"]["HEBEI_WEB_METRICS_PORT"])
    assert {p["name"]: p["containerPort"] for p in container["ports"]} == {
        "http": port,
        "metrics": metrics_port,  # its own /metrics, never on the public port
    }
    for probe in ("startupProbe", "readinessProbe", "livenessProbe"):
        assert container[probe]["httpGet"] == {"path": "/api/health", "port": "http"}, probe
    service_ports = by_kind(docs, "Service")["hebei-web"]["spec"]["ports"]
    assert {p["name"]: p["port"] for p in service_ports} == {"http": port, "metrics": metrics_port}
    assert "hebei-web" not in by_kind(rendered("prod"), "PodDisruptionBudget")  # one pod
    # seat sessions and SSE resume buffers live in the gateway's memory
    assert by_kind(rendered("prod"), "Deployment")["hebei-web"]["spec"]["replicas"] == 1
    (ingress,) = by_kind(rendered("prod"), "Ingress").values()
    for rule in ingress["spec"]["rules"]:
        for path in rule["http"]["paths"]:
            backend = path["backend"]["service"]
            assert (backend["name"], backend["port"]) == ("hebei-web", {"name": "http"})
    assert ingress["metadata"]["annotations"]["nginx.ingress.kubernetes.io/proxy-buffering"] == (
        "off"
    )  # Server-Sent Events


def test_addresses_in_the_config_name_real_services():
    docs = rendered("base")
    (config,) = by_kind(docs, "ConfigMap").values()
    services = by_kind(docs, "Service")
    addresses = {k: v for k, v in config["data"].items() if k.endswith(("_ADDRESS", "_ENDPOINT"))}
    assert {k.split("_")[1] for k in addresses} == {"TABLE", "MATCHMAKING", "BOTSERVICE", "WEB"}
    for key, value in addresses.items():
        host, port = value.split(":")
        grpc = {p["port"] for p in services[host]["spec"]["ports"] if p["name"] == "grpc"}
        assert int(port) in grpc, key
    web = {f"HEBEI_WEB_{s.upper()}_ADDRESS" for s in ("table", "matchmaking", "ledger")}
    assert web <= set(addresses)
    for item in config["data"]["HEBEI_WEB_METRICS"].split(","):
        _name, _, address = item.partition("=")
        host, port = address.split(":")
        metrics = {p["port"] for p in services[host]["spec"]["ports"] if p["name"] == "metrics"}
        assert int(port) in metrics, item
    assert config["data"]["HEBEI_HOST"] == "0.0.0.0"


def test_services_drain_and_finish_their_calls_before_the_grace_period_ends():
    """SIGTERM drains by default: NOT_SERVING for up to HEBEI_DRAIN_SECONDS, then the calls in
    flight get HEBEI_GRACE_SECONDS; the kubelet's SIGKILL must come after both."""
    docs = rendered("prod")
    config = by_kind(docs, "ConfigMap")["hebei-config"]
    stop = float(config["data"]["HEBEI_DRAIN_SECONDS"]) + float(
        config["data"]["HEBEI_GRACE_SECONDS"]
    )
    for name in DEFAULT_PORTS:
        spec = pod_specs(docs)[f"hebei-{name}"]
        assert spec["terminationGracePeriodSeconds"] > stop, name


def test_bot_workers_drain_before_the_grace_period_ends():
    docs = rendered("base")
    (config,) = by_kind(docs, "ConfigMap").values()
    spec = pod_specs(docs)["hebei-bots"]
    longest_match = float(config["data"]["HEBEI_BOTS_VISIBILITY_TIMEOUT"])
    assert spec["terminationGracePeriodSeconds"] > longest_match
    (container,) = spec["containers"]
    command = container["command"]
    assert command[:3] == ["hebei", "bots", "worker"]
    assert command[command.index("--processes") + 1] == "1"
    assert {p["name"]: p["containerPort"] for p in container["ports"]} == {"metrics": 9104}
    # prefetch 1: a worker process reserves only the seats it can start
    argv = worker_argv(0, 32, list(POLICIES), "INFO", "bots")
    assert argv[argv.index("--prefetch-multiplier") + 1] == "1"


def test_keda_scales_on_the_real_celery_queue_keys():
    (config,) = by_kind(rendered("base"), "ConfigMap").values()
    prefix = config["data"]["HEBEI_BOTS_QUEUE_PREFIX"]
    queues = {BotsConfig(None, None, queue_prefix=prefix).queue_of(p) for p in POLICIES}
    docs = rendered("prod")
    (scaled,) = by_kind(docs, "ScaledObject").values()
    assert scaled["spec"]["scaleTargetRef"]["name"] == "hebei-bots"
    assert scaled["spec"]["minReplicaCount"] >= 1
    redis = [t for t in scaled["spec"]["triggers"] if t["type"] == "redis"]
    assert {t["metadata"]["listName"] for t in redis} == queues
    # one pod's seats per queued step: N queued seats ask for N/sessions pods
    command = pod_specs(docs)["hebei-bots"]["containers"][0]["command"]
    sessions = command[command.index("--sessions") + 1]
    assert {t["metadata"]["listLength"] for t in redis} == {sessions}
    # the seat sessions of this namespace only (a shared Prometheus sees every namespace's)
    (seats,) = [t for t in scaled["spec"]["triggers"] if t["type"] == "prometheus"]
    namespace = scaled["metadata"]["namespace"]
    assert f'namespace="{namespace}"' in seats["metadata"]["query"], seats["metadata"]["query"]
    auth = by_kind(docs, "TriggerAuthentication")
    for trigger in redis:
        ref = auth[trigger["authenticationRef"]["name"]]
        params = {s["parameter"] for s in ref["spec"]["secretTargetRef"]}
        assert {"address", "password"} <= params
        assert all(s["name"] == "hebei-secrets" for s in ref["spec"]["secretTargetRef"])


def test_monitors_give_the_job_names_the_alerts_select():
    docs = rendered("prod")
    services = by_kind(docs, "Service")
    monitor = by_kind(docs, "ServiceMonitor")["hebei-services"]
    selected = [
        s
        for s in services.values()
        if all(
            s["metadata"]["labels"].get(k) == v
            for k, v in monitor["spec"]["selector"]["matchLabels"].items()
        )
    ]
    jobs = {s["metadata"]["labels"][monitor["spec"]["jobLabel"]] for s in selected}
    assert jobs == {f"hebei-{name}" for name in DEFAULT_PORTS} | {"hebei-web"}
    assert {"hebei-ledger", "hebei-table", "hebei-matchmaking", "hebei-botservice"} <= jobs
    pods = by_kind(docs, "PodMonitor")["hebei-bots"]
    bots = by_kind(docs, "Deployment")["hebei-bots"]["spec"]["template"]["metadata"]["labels"]
    assert bots[pods["spec"]["jobLabel"]] == "hebei-bots"
    postgres = by_kind(docs, "ServiceMonitor")["hebei-postgres"]
    assert (
        services["postgres-exporter"]["metadata"]["labels"][postgres["spec"]["jobLabel"]]
        == "postgres"
    )
    redis = by_kind(docs, "ServiceMonitor")["hebei-redis"]
    assert services["redis-exporter"]["metadata"]["labels"][redis["spec"]["jobLabel"]] == "redis"


def test_prometheus_and_alertmanager_select_what_the_site_names():
    """The labels kube-prometheus-stack selects by (site.yml), on the monitors, the rule and
    the Alertmanager routes, and on nothing else."""
    site = load_site()
    docs = rendered("prod")
    selected = ("ServiceMonitor", "PodMonitor", "PrometheusRule", "AlertmanagerConfig")
    for doc in docs:
        labels = doc["metadata"].get("labels", {})
        carries = site.selector_labels.items() <= labels.items()
        assert carries == (doc["kind"] in selected), (doc["kind"], doc["metadata"]["name"])
    (config,) = by_kind(docs, "AlertmanagerConfig").values()
    receivers = {r["name"] for r in config["spec"]["receivers"]}
    assert config["spec"]["route"]["receiver"] in receivers and config["spec"]["inhibitRules"]


def test_grafana_dashboards_ship_as_configmaps_for_the_sidecar():
    site = load_site()
    boards = {board.uid for board in BOARDS}
    maps = by_kind(rendered("prod"), "ConfigMap")
    dashboards = {
        n: m
        for n, m in maps.items()
        if site.dashboard_label.items() <= m["metadata"].get("labels", {}).items()
    }
    assert {n.removesuffix("-dashboard") for n in dashboards} == boards
    for name, config_map in dashboards.items():
        (text,) = config_map["data"].values()
        assert json.loads(text)["uid"] == name.removesuffix("-dashboard")


def test_the_prometheus_rule_is_the_bundle():
    (rule,) = by_kind(rendered("prod"), "PrometheusRule").values()
    names = {r.get("alert") for g in rule["spec"]["groups"] for r in g["rules"]} - {None}
    assert {"HebeiServiceDown", "HebeiRoundStuck", "HebeiPostgresDown"} <= names


def test_network_policies_admit_the_contract_paths_on_ports_that_exist():
    docs = rendered("prod")
    policies = by_kind(docs, "NetworkPolicy")
    assert policies["hebei-default-deny-ingress"]["spec"]["podSelector"] == {}
    specs = pod_specs(docs)
    named = {
        name: {p["name"] for c in spec["containers"] for p in c.get("ports", [])}
        for name, spec in specs.items()
    }
    for name, policy in policies.items():
        selector = policy["spec"]["podSelector"].get("matchLabels", {})
        target = selector.get("app.kubernetes.io/name")
        for rule in policy["spec"].get("ingress", []):
            for port in rule["ports"]:
                if isinstance(port["port"], str) and target in named:
                    assert port["port"] in named[target], (name, port)

    def admitted(target: str, source: str, port: str = "grpc") -> bool:
        rules = policies[target]["spec"]["ingress"]
        for rule in rules:
            if port not in [p["port"] for p in rule["ports"]]:
                continue
            if "from" not in rule:
                return True
            for peer in rule["from"]:
                if (
                    peer.get("podSelector", {}).get("matchLabels", {}).get("app.kubernetes.io/name")
                    == source
                ):
                    return True
        return False

    assert admitted("hebei-ledger", "hebei-table") and admitted("hebei-ledger", "hebei-matchmaking")
    assert admitted("hebei-ledger", "hebei-ledger-audit")
    assert not admitted("hebei-ledger", "hebei-bots")  # the ledger is not the workers' business
    assert admitted("hebei-table", "hebei-bots") and admitted("hebei-matchmaking", "hebei-table")
    # the web gateway's calls: the table engine, matchmaking, the ledger's health, and the
    # table engine's /metrics for its operators' view; browsers reach the gateway
    for target in ("hebei-table", "hebei-matchmaking", "hebei-ledger"):
        assert admitted(target, "hebei-web"), target
    assert admitted("hebei-table", "hebei-web", "metrics")
    assert not admitted("hebei-ledger", "hebei-web", "metrics")
    assert admitted("hebei-web", "an-ingress-controller", "http")
    # the bot service reads finished matches from the engine; people reach it
    assert admitted("hebei-table", "hebei-botservice")
    assert admitted("hebei-botservice", "a-person", "grpc")
    assert not admitted("hebei-botservice", "a-person", "metrics")
    every_pod = set(pod_specs(docs)) - {"hebei-ledger-audit"}  # a CronJob's pods serve nothing
    assert every_pod <= {p["spec"]["podSelector"]["matchLabels"]["app.kubernetes.io/name"]
                         for p in policies.values() if p["spec"]["podSelector"]}  # fmt: skip


def test_overlays_differ_as_documented():
    dev, prod = rendered("dev"), rendered("prod")
    assert {d["metadata"].get("namespace") for d in dev if d["kind"] != "Namespace"} == {
        "hebei-dev"
    }
    assert {"postgres", "redis"} <= set(pod_specs(dev))
    assert not {"postgres", "redis"} & set(pod_specs(prod))  # external in production
    replicas = {n: d["spec"].get("replicas", 1) for n, d in workloads(dev).items()}
    assert all(replicas[n] == 1 for n in OURS)
    replicas = {n: d["spec"].get("replicas") for n, d in workloads(prod).items()}
    assert replicas["hebei-ledger"] > 1 and replicas["hebei-matchmaking"] == 2
    assert replicas["hebei-table"] == 3  # an owner per match; budget and spread: a majority up
    # by digest (a tag can be moved): the placeholder has the form the docs tell to fill in
    images = {c["image"] for c in containers(prod) if "hebei" in c["image"]}
    (image,) = images
    assert re.fullmatch(r"registry\.example\.com/hebei@sha256:[0-9a-f]{64}", image), image


def test_the_audit_job_script_compiles():
    (job,) = by_kind(rendered("base"), "CronJob").values()
    (container,) = job["spec"]["jobTemplate"]["spec"]["template"]["spec"]["containers"]
    assert container["command"] == ["python", "-c"]
    compile(container["args"][0], "ledger-audit", "exec")


def test_the_secret_keys_are_documented():
    example = (K8S / "secrets.env.example").read_text()
    documented = {
        line.split("=")[0]
        for line in example.splitlines()
        if "=" in line and not line.startswith("#")
    }
    used = set()
    for name in RENDERS:
        for doc in rendered(name):
            for ref in _secret_refs(doc):
                used.add(ref)
    assert used and used <= documented


def _secret_refs(node: Any) -> list[str]:
    out = []
    if isinstance(node, dict):
        if node.get("name") == "hebei-secrets" and "key" in node:
            out.append(node["key"])
        for value in node.values():
            out.extend(_secret_refs(value))
    elif isinstance(node, list):
        for value in node:
            out.extend(_secret_refs(value))
    return out


def test_renders_are_deterministic(tmp_path: Path):
    again = kustomize(RENDERS["prod"])
    assert again == list(rendered("prod"))
