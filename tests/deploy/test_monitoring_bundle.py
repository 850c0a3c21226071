"""deploy/monitoring, the bundle: generated files up to date, promtool's checks and unit tests,
one firing and one quiet case per alert, annotations and runbooks, dashboards whose every
query is valid PromQL, and the same groups in the Kubernetes PrometheusRule."""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path
from types import ModuleType

import pytest
import yaml
from hebei_monitoring.outputs import outputs
from hebei_monitoring.scoping import SCOPE_MATCHERS, scoped
from hebei_monitoring.thresholds import BUDGETS, DEFAULT_BUDGET, SEAT_DECISION_TARGET

from hebei.common.config import DEFAULT_PORTS
from hebei.stack.processes import METRICS_JOBS
from hebei.stack.prometheus import prometheus_config
from tests.deploy import promql
from tests.deploy.conftest import K8S, MONITORING, ROOT, find_tool, run, tool

ALERT_FILES = sorted(MONITORING.glob("alerts/*.yml"))
RULE_FILES = sorted(MONITORING.glob("rules/*.yml"))
TEST_FILES = sorted(MONITORING.glob("tests/*.yml"))
ANNOTATIONS = {"summary", "description", "runbook_url", "dashboard_url"}


def alerts() -> list[dict]:
    return [rule for rule in promql.rules() if "alert" in rule]


def operating_chapter() -> str:
    text = (ROOT / "README.md").read_text()
    match = re.search(r"^## Operating\n(.*?)(?=^## |\Z)", text, re.S | re.M)
    assert match, "README.md has no Operating chapter"
    return match.group(1)


def anchors(markdown: str) -> set[str]:
    """GitHub's anchors of the headings."""
    out = set()
    for line in markdown.splitlines():
        if line.startswith("#"):
            title = line.lstrip("#").strip().lower()
            out.add(re.sub(r"[^\w\- ]", "", title).replace(" ", "-"))
    return out


def test_the_generated_files_are_up_to_date():
    stale = [
        str(path.relative_to(ROOT))
        for path, text in outputs().items()
        if not path.exists() or path.read_text() != text
    ]
    assert stale == [], "run: .venv/bin/python deploy/monitoring/generate.py"


def test_promtool_checks_the_rules_and_alerts():
    result = run([tool("promtool"), "check", "rules", *map(str, RULE_FILES + ALERT_FILES)])
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.count("SUCCESS") == len(RULE_FILES + ALERT_FILES)


def test_promtool_checks_the_compose_prometheus_config_with_its_rules():
    result = run([tool("promtool"), "check", "config", str(MONITORING / "prometheus.yml")])
    assert result.returncode == 0, result.stdout + result.stderr
    assert f"SUCCESS: {len(RULE_FILES + ALERT_FILES)} rule files found" in result.stdout


def test_promtool_checks_the_local_stacks_prometheus_config(tmp_path: Path):
    targets = {job: [f"127.0.0.1:{9100 + i}"] for i, job in enumerate(METRICS_JOBS.values())}
    config = tmp_path / "prometheus.yml"
    config.write_text(prometheus_config(targets, MONITORING, 1.0))
    result = run([tool("promtool"), "check", "config", str(config)])
    assert result.returncode == 0, result.stdout + result.stderr
    assert set(METRICS_JOBS.values()) <= {
        job["job_name"] for job in yaml.safe_load(config.read_text())["scrape_configs"]
    }


def test_promtool_unit_tests_pass():
    for path in TEST_FILES:
        result = run([tool("promtool"), "test", "rules", path.name], cwd=path.parent)
        assert result.returncode == 0, result.stdout + result.stderr


def test_a_broken_alert_fails_its_unit_test(tmp_path: Path):
    """promtool really evaluates: an alert whose threshold moved fails its firing case."""
    for folder in ("rules", "alerts", "tests"):
        (tmp_path / folder).mkdir()
    for path in RULE_FILES + TEST_FILES:
        (tmp_path / path.parent.name / path.name).write_text(path.read_text())
    for path in ALERT_FILES:
        text = path.read_text().replace("up{job=~", "up{job!~", 1)  # HebeiServiceDown
        (tmp_path / "alerts" / path.name).write_text(text)
    test = tmp_path / "tests" / TEST_FILES[0].name
    result = run([tool("promtool"), "test", "rules", test.name], cwd=test.parent)
    assert result.returncode != 0 and "HebeiServiceDown fires" in result.stdout + result.stderr


def test_every_alert_has_a_firing_and_a_quiet_case():
    cases: dict[str, set[bool]] = {}
    for path in TEST_FILES:
        for test in yaml.safe_load(path.read_text())["tests"]:
            for check in test.get("alert_rule_test", []):
                cases.setdefault(check["alertname"], set()).add(bool(check["exp_alerts"]))
    for alert in alerts():
        if alert["alert"] == "Watchdog":  # always firing: the heartbeat of the pipeline
            assert cases["Watchdog"] == {True} and alert["expr"] == "vector(1)"
            continue
        assert cases.get(alert["alert"]) == {True, False}, alert["alert"]


def test_service_down_covers_every_grpc_service_and_fires_for_the_bot_service():
    (down,) = [alert for alert in alerts() if alert["alert"] == "HebeiServiceDown"]
    selected = re.fullmatch(r'up\{job=~"([^"]+)"\} == 0', down["expr"])
    assert selected, down["expr"]
    services = {f"hebei-{name}" for name in DEFAULT_PORTS} | {"hebei-web"}  # and the gateway
    assert set(selected.group(1).split("|")) == services
    (test,) = [
        test
        for path in TEST_FILES
        for test in yaml.safe_load(path.read_text())["tests"]
        if test["name"] == "HebeiServiceDown fires"
    ]
    fired = {a["exp_labels"]["job"] for c in test["alert_rule_test"] for a in c["exp_alerts"]}
    assert "hebei-botservice" in fired and "hebei-bots" not in fired  # workers: their own alert


def test_no_alert_or_group_is_defined_twice():
    names = Counter(alert["alert"] for alert in alerts())
    assert [name for name, count in names.items() if count > 1] == []
    groups = Counter(
        group["name"]
        for path in RULE_FILES + ALERT_FILES
        for group in yaml.safe_load(path.read_text())["groups"]
    )
    assert [name for name, count in groups.items() if count > 1] == []


def test_alerts_carry_severity_annotations_a_runbook_and_a_dashboard():
    runbooks = anchors(operating_chapter())
    boards = {board["uid"] for board in promql.dashboards().values()}
    assert len(alerts()) >= 15
    for alert in alerts():
        name = alert["alert"]
        if name == "Watchdog":
            assert alert["labels"]["severity"] == "none"
        else:
            assert alert["labels"]["severity"] in ("critical", "warning"), name
        assert set(alert["annotations"]) == ANNOTATIONS, name
        runbook = alert["annotations"]["runbook_url"]
        assert runbook.split("#", 1)[1] in runbooks, f"{name}: no README section {runbook}"
        assert alert["annotations"]["dashboard_url"].rsplit("/d/", 1)[1] in boards, name


def test_the_operating_chapter_explains_every_alert_and_dashboard():
    chapter = operating_chapter()
    for alert in alerts():
        assert f"#### {alert['alert']}" in chapter
    for board in promql.dashboards().values():
        assert board["title"] in chapter, board["title"]


def test_recording_rules_cover_p50_and_p99_per_service_and_method():
    records = {rule["record"]: rule["expr"] for rule in promql.rules() if "record" in rule}
    for quantile in ("0.5", "0.99"):
        name = f"hebei:grpc_server_handling_seconds:p{quantile[2:].ljust(2, '0')}_5m"
        assert f"histogram_quantile({quantile}," in records[name]
        assert "grpc_service, grpc_method" in records[name]


def test_dashboards_are_well_formed():
    boards = promql.dashboards()
    assert {
        "hebei-grpc",
        "hebei-tables",
        "hebei-bots",
        "hebei-tournaments",
        "hebei-ledger",
        "hebei-web",
    } <= set(boards)
    assert len({board["uid"] for board in boards.values()}) == len(boards)
    for uid, board in boards.items():
        assert board["uid"] == uid and board["title"].startswith("Hebei / ")
        ids = [panel["id"] for panel in board["panels"]]
        assert len(ids) == len(set(ids)), uid
        variables = {v["name"] for v in board["templating"]["list"]}
        assert {"datasource", "cluster", "namespace"} <= variables
        for panel in board["panels"]:
            grid = panel["gridPos"]
            assert grid["x"] >= 0 and grid["x"] + grid["w"] <= 24, (uid, panel["title"])
            if panel["type"] == "row":
                continue
            assert panel["datasource"] == {"type": "prometheus", "uid": "${datasource}"}
            assert panel["targets"], (uid, panel["title"])
            for target in panel["targets"]:
                used = set(re.findall(r"\$(\w+)", target["expr"])) - {"__rate_interval"}
                assert used <= variables, (uid, panel["title"], used)


def test_every_dashboard_query_is_valid_promql(tmp_path: Path):
    exprs = list(promql.panel_exprs())
    rules = {
        "groups": [
            {
                "name": "panels",
                "rules": [
                    {"record": f"panel_{i}", "expr": e} for i, (_u, _t, e) in enumerate(exprs)
                ],
            }
        ]
    }
    path = tmp_path / "panels.yml"
    path.write_text(yaml.safe_dump(rules))
    result = run([tool("promtool"), "check", "rules", str(path)])
    assert result.returncode == 0, result.stdout + result.stderr
    assert f"SUCCESS: {len(exprs)} rules found" in result.stdout


def test_the_metric_name_parser_finds_names_not_functions_or_labels():
    expr = (
        'sum by (job) (rate(a_total{x="b c"}[5m])) / on (job) group_left () b'
        " unless c offset 30m > bool 0 or histogram_quantile(0.9, sum by (le) (rate(d_bucket[1h])))"
    )
    assert promql.metric_names(expr) == {"a_total", "b", "c", "d_bucket"}


def test_every_name_a_dashboard_or_alert_uses_is_known_by_kind():
    """Each name is a service metric (hebei_*, grpc_*, the client library's
    process_start_time_seconds), Prometheus's own ``up``, postgres_exporter's (pg_*),
    redis_exporter's (redis_*) or RabbitMQ's (rabbitmq_*); the e2e test checks the service
    ones against a scrape."""
    unknown = {
        name: where
        for name, where in promql.used_metrics().items()
        if not name.startswith(("hebei_", "grpc_", "pg_", "redis_", "rabbitmq_"))
        and name not in ("up", "process_start_time_seconds")
    }
    assert unknown == {}


def test_rules_and_alerts_aggregate_by_cluster_and_namespace_as_well_as_job():
    for rule in promql.rules():
        for labels in re.findall(r"\b(?:by|on) \(([^)]*)\)", rule["expr"]):
            names = {label.strip() for label in labels.split(",")}
            if "job" in names or "queue" in names:
                assert {"cluster", "namespace"} <= names, (
                    rule.get("alert", rule.get("record")),
                    labels,
                )


def test_every_dashboard_query_is_scoped_by_cluster_and_namespace():
    scope = SCOPE_MATCHERS
    for board in promql.dashboards().values():
        for panel in board["panels"]:
            for target in panel.get("targets", []):
                expr = target["expr"]
                for name in promql.metric_names(expr):
                    selectors = re.findall(rf"(?<![\w:]){re.escape(name)}\{{([^}}]*)\}}", expr)
                    assert selectors and all(scope in s for s in selectors), (panel["title"], expr)


def test_scoping_leaves_functions_labels_and_strings_alone():
    expr = (
        'sum by (job) (rate(a_total{x="b c"}[5m])) / on (job) group_left () b'
        " unless c offset 30m > bool 0 or histogram_quantile(0.9, sum by (le) (rate(d_bucket[1h])))"
        ' or label_replace(e, "q", "$1", "k", "(.+)") or vector(1)'
    )
    m = SCOPE_MATCHERS
    assert scoped(expr) == (
        f'sum by (job) (rate(a_total{{x="b c",{m}}}[5m])) / on (job) group_left () b{{{m}}}'
        f" unless c{{{m}}} offset 30m > bool 0 or histogram_quantile(0.9, sum by (le)"
        f" (rate(d_bucket{{{m}}}[1h])))"
        f' or label_replace(e{{{m}}}, "q", "$1", "k", "(.+)") or vector(1)'
    )


def test_other_links_regenerate_a_consistent_bundle(generator: ModuleType, tmp_path: Path):
    """--runbook-base and --grafana-url (into a folder, not the repository): the runbook links
    still name the README's sections, the dashboard links its boards, the unit tests (which
    expect the annotations) pass."""
    site = (MONITORING / "site.yml").read_text()
    base, grafana = (
        "https://code.example.org/ops/hebei/-/blob/v2/README.md",
        "https://g.example.org",
    )
    argv = ["--out", str(tmp_path), "--runbook-base", base, "--grafana-url", grafana + "/"]
    argv += ["--selector-label", "prometheus=ops", "--dashboard-label", "dashboards=hebei"]
    assert generator.main(argv) == 0
    assert (MONITORING / "site.yml").read_text() == site  # the repository's is untouched
    out = tmp_path / MONITORING.relative_to(ROOT)
    runbooks = anchors(operating_chapter())
    boards = {p.stem for p in (out / "dashboards").glob("*.json")}
    written = yaml.safe_load((out / "site.yml").read_text())
    assert written["runbook_base"] == base and written["grafana_url"] == grafana
    for group in yaml.safe_load((out / "alerts" / "hebei.yml").read_text())["groups"]:
        for alert in group["rules"]:
            runbook, _, anchor = alert["annotations"]["runbook_url"].partition("#")
            assert runbook == base and anchor in runbooks, alert["alert"]
            board = alert["annotations"]["dashboard_url"]
            assert board.startswith(grafana + "/d/") and board.rsplit("/", 1)[1] in boards
    result = run([tool("promtool"), "test", "rules", "hebei_test.yml"], cwd=out / "tests")
    assert result.returncode == 0, result.stdout + result.stderr
    monitoring = tmp_path / "k8s" / "components" / "monitoring"
    labels = yaml.safe_load((monitoring / "selector-labels.yaml").read_text())["labels"]
    assert labels == {"prometheus": "ops"}
    component = tmp_path / "k8s" / "components" / "grafana-dashboards" / "kustomization.yaml"
    options = yaml.safe_load(component.read_text())["generatorOptions"]
    assert options["labels"]["dashboards"] == "hebei"


def test_alertmanager_routes_and_inhibitions_name_real_alerts(generator: ModuleType):
    config = yaml.safe_load((MONITORING / "alertmanager.yml").read_text())
    names = {alert["alert"] for alert in alerts()}
    receivers = {r["name"] for r in config["receivers"]}
    assert config["route"]["receiver"] in receivers
    assert {r["receiver"] for r in config["route"]["routes"]} <= receivers
    assert config["route"]["routes"][0]["matchers"] == ['alertname="Watchdog"']
    pairs = set()
    for rule in config["inhibit_rules"]:
        for key in ("source_matchers", "target_matchers"):
            (matcher,) = rule[key]
            listed = re.fullmatch(r'alertname=~?"([^"]+)"', matcher).group(1).split("|")
            assert set(listed) <= names, listed
        pairs.add((rule["source_matchers"][0], rule["target_matchers"][0]))
        assert rule["equal"] and set(rule["equal"]) <= {"cluster", "namespace", "job", "instance"}
    assert ('alertname="HebeiBotFleetAbsent"', 'alertname="HebeiBotWorkerDown"') in pairs
    down = [r for r in config["inhibit_rules"] if "HebeiServiceDown" in r["source_matchers"][0]]
    assert down and "HebeiGrpcErrorRatioHigh" in down[0]["target_matchers"][0]
    # the Kubernetes AlertmanagerConfig says the same
    crd = yaml.safe_load(
        (K8S / "components" / "monitoring" / "alertmanagerconfig.yaml").read_text()
    )
    assert len(crd["spec"]["inhibitRules"]) == len(config["inhibit_rules"])


def test_amtool_checks_the_alertmanager_config():
    amtool = find_tool("amtool")  # .ci/run installs it: apt-get install prometheus-alertmanager
    if not amtool:
        pytest.fail("amtool is missing: apt-get install -y prometheus-alertmanager")
    result = run([amtool, "check-config", str(MONITORING / "alertmanager.yml")])
    assert result.returncode == 0, result.stdout + result.stderr
    assert " 4 inhibit rules" in result.stdout and " 3 receivers" in result.stdout


def test_the_kubernetes_prometheus_rule_has_the_same_groups():
    rule = yaml.safe_load((K8S / "components" / "monitoring" / "prometheusrule.yaml").read_text())
    groups = [
        group
        for path in RULE_FILES + ALERT_FILES
        for group in yaml.safe_load(path.read_text())["groups"]
    ]
    assert rule["kind"] == "PrometheusRule" and rule["spec"]["groups"] == groups


@pytest.mark.parametrize("board", sorted(promql.dashboards()))
def test_dashboards_are_plain_json_grafana_can_import(board: str):
    data = json.loads((MONITORING / "dashboards" / f"{board}.json").read_text())
    assert data["schemaVersion"] >= 36 and data["editable"] is True


def _histogram_edges() -> dict[str, tuple[float, ...]]:
    """Each service histogram's bucket upper bounds, by metric name."""
    import importlib

    from prometheus_client import Histogram

    edges = {}
    for module in ("common", "table", "bots", "ledger", "matchmaking"):
        for value in vars(importlib.import_module(f"hebei.{module}.metrics")).values():
            if isinstance(value, Histogram):
                edges[value._name] = tuple(value._upper_bounds)
    return edges


def test_every_latency_threshold_is_a_bucket_edge_of_its_histogram():
    # histogram_quantile interpolates inside a bucket: a threshold between two edges (20 ms
    # between 10 and 25) makes "p99 above the threshold" a guess. Every quantile alert's
    # threshold, every RPC budget and the stack bench's round-trip target is an edge.
    from hebei.bench.stack import TARGETS
    from hebei.bench.stack_metrics import DECISION_WAIT, ROUND_TRIP

    edges = _histogram_edges()
    recorded = promql.recorded()
    checked = []
    for rule in alerts():
        quantile_alert = r"(hebei:\w+:p\d+_\d+[mh])(?:\{[^}]*\})?\s*>\s*([\d.]+)"
        for record, threshold in re.findall(quantile_alert, rule["expr"]):
            (bucket,) = recorded[record]
            metric = bucket.removesuffix("_bucket")
            assert float(threshold) in edges[metric], (rule["alert"], threshold, edges[metric])
            checked.append(rule["alert"])
    assert {"HebeiBotDecisionSlow", "HebeiBotQueueWaitHigh"} <= set(checked)
    # the seat objective counts the answers in the bucket ending at its target
    answer = edges["hebei_table_decision_answer_seconds"]
    assert SEAT_DECISION_TARGET in answer
    slow = [
        r["expr"] for r in promql.rules() if "table_decision_answer_slow" in r.get("record", "")
    ]
    assert slow and all(f'le="{SEAT_DECISION_TARGET:g}"' in e for e in slow)
    grpc = edges["grpc_server_handling_seconds"]
    for budget in (DEFAULT_BUDGET, *BUDGETS.values()):
        assert budget in grpc, budget
    for metric in (ROUND_TRIP, DECISION_WAIT):  # the bench's round trip and the whole wait
        assert TARGETS["seat_rtt_p99_ms"] / 1000 in edges[metric], metric
