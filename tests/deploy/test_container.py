"""deploy/Dockerfile, its ignore file and docker-compose.yml, validated offline: hadolint,
``docker compose config`` (the compose-spec schema, interpolation, profiles) and what the
services need of them. No Docker engine runs here: the image is not built (see README)."""

from __future__ import annotations

import importlib.util
import json
import os
import re
import secrets
import shlex
import shutil
import signal
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import pytest
import yaml

from hebei.common import healthcheck
from hebei.common.config import DEFAULT_PORTS
from hebei.stack.processes import METRICS_JOBS
from tests.deploy.conftest import DEPLOY, MONITORING, ROOT, docker_compose, run, tool

DOCKERFILE = DEPLOY / "Dockerfile"
COMPOSE = DEPLOY / "docker-compose.yml"
ENV_EXAMPLE = DEPLOY / ".env.example"
HEBEI_SERVICES = tuple(DEFAULT_PORTS)  # every gRPC service: ledger, table, ..., botservice
STATEFUL = ("ledger", "table", "matchmaking")  # PostgreSQL behind them


def instructions() -> list[tuple[str, str]]:
    """The Dockerfile's instructions (continuation lines joined), comments dropped."""
    text = re.sub(r"\\\n", " ", DOCKERFILE.read_text())
    out = []
    for line in text.splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            word, _, rest = line.partition(" ")
            out.append((word.upper(), rest.strip()))
    return out


def test_hadolint_finds_nothing():
    result = run([tool("hadolint"), "--no-color", "--failure-threshold", "style", str(DOCKERFILE)])
    assert result.returncode == 0, result.stdout + result.stderr


def test_hadolint_does_report_a_bad_dockerfile(tmp_path: Path):
    bad = tmp_path / "Dockerfile"
    bad.write_text("FROM python\nRUN apt-get install curl\nUSER root\n")
    result = run([tool("hadolint"), "--no-color", "--failure-threshold", "style", str(bad)])
    assert result.returncode != 0  # the tool really checks: untagged image, root user
    assert "DL3006" in result.stdout and "DL3002" in result.stdout


def test_the_image_is_multi_stage_non_root_and_checks_grpc_health():
    steps = instructions()
    stages = [rest for word, rest in steps if word == "FROM"]
    assert len(stages) >= 2 and any(" AS build" in s for s in stages)
    final = steps[max(i for i, (word, _) in enumerate(steps) if word == "FROM") :]
    users = [rest for word, rest in final if word == "USER"]
    assert users and users[-1].split(":")[0] not in ("root", "0")
    (check,) = [rest for word, rest in final if word == "HEALTHCHECK"]
    assert '"python", "-m", "hebei.common.healthcheck"' in check
    assert importlib.util.find_spec("hebei.common.healthcheck") is not None
    env = " ".join(rest for word, rest in final if word == "ENV")
    assert "HEBEI_HOST=0.0.0.0" in env  # the services default to loopback
    exposed = {int(p) for word, rest in final if word == "EXPOSE" for p in rest.split()}
    assert {port for pair in DEFAULT_PORTS.values() for port in pair} <= exposed
    for word, rest in steps:
        if word == "COPY" and "--from" not in rest:
            for source in shlex.split(rest)[:-1]:
                assert (ROOT / source).exists(), f"COPY {source}: no such path"


def test_the_ignore_file_keeps_only_what_the_build_copies():
    ignore = (DEPLOY / "Dockerfile.dockerignore").read_text().splitlines()
    rules = [line for line in ignore if line and not line.startswith("#")]
    assert rules[0] == "*"
    kept = {line[1:].rstrip("/") for line in rules if line.startswith("!")}
    copied = {
        source.rstrip("/")
        for word, rest in instructions()
        if word == "COPY" and "--from" not in rest
        for source in shlex.split(rest)[:-1]
    }
    assert copied <= kept


def compose_config(*extra: str, env_file: Path = ENV_EXAMPLE) -> dict:
    result = run(
        [docker_compose(), "-f", str(COMPOSE), "--env-file", str(env_file), *extra,
         "config", "--format", "json"]
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def test_compose_is_valid_with_the_example_env_file():
    result = run(
        [docker_compose(), "-f", str(COMPOSE), "--env-file", str(ENV_EXAMPLE), "config", "-q"]
    )
    assert result.returncode == 0, result.stderr


def test_compose_schema_validation_is_real(tmp_path: Path):
    broken = tmp_path / "docker-compose.yml"
    data = yaml.safe_load(COMPOSE.read_text())
    data["services"]["ledger"]["helthcheck"] = data["services"]["ledger"].pop("healthcheck")
    broken.write_text(yaml.safe_dump(data))
    result = run(
        [docker_compose(), "-f", str(broken), "--env-file", str(ENV_EXAMPLE), "config", "-q"]
    )
    assert result.returncode != 0 and "helthcheck" in result.stderr


def test_compose_refuses_to_run_without_its_secrets(tmp_path: Path):
    empty = tmp_path / "empty.env"
    empty.write_text("")
    result = run([docker_compose(), "-f", str(COMPOSE), "--env-file", str(empty), "config", "-q"])
    assert result.returncode != 0 and "deploy/.env" in result.stderr


def test_secrets_come_only_from_the_uncommitted_env_file():
    text = COMPOSE.read_text()
    secrets = [
        line.split("=", 1)
        for line in ENV_EXAMPLE.read_text().splitlines()
        if line and not line.startswith("#")
    ]
    for name, value in secrets:
        if "PASSWORD" in name or "TOKEN" in name:
            assert value not in text, f"{name}'s example value is written into the compose file"
            assert "${" + name in text, f"{name} is not taken from the env file"
    assert ".env" in (DEPLOY / ".gitignore").read_text().splitlines()
    ignored = run(["git", "check-ignore", "-q", str(DEPLOY / ".env")])
    assert ignored.returncode == 0, "deploy/.env is not ignored by git"


def test_every_hebei_service_is_health_checked_through_grpc_health():
    config = compose_config()
    services = config["services"]
    for name in HEBEI_SERVICES:
        service = services[name]
        port = DEFAULT_PORTS[name][0]
        assert service["command"] == ["python", "-m", f"hebei.{name}"]
        assert service["healthcheck"]["test"] == [
            "CMD", "python", "-m", "hebei.common.healthcheck", f"127.0.0.1:{port}",
        ]  # fmt: skip
        assert service["read_only"] is True and service["cap_drop"] == ["ALL"]
        env = service["environment"]  # beyond loopback: a service token of its own
        assert (
            env["HEBEI_SERVICE_TOKEN"] and env["HEBEI_SERVICE_TOKEN"] != env["HEBEI_OPERATOR_TOKEN"]
        )
        if name in STATEFUL:
            assert service["depends_on"]["postgres"]["condition"] == "service_healthy"
    env = services["table"]["environment"]
    assert env["HEBEI_TABLE_LEDGER_ADDRESS"] == f"ledger:{DEFAULT_PORTS['ledger'][0]}"
    assert (
        env["HEBEI_TABLE_MATCHMAKING_ADDRESS"] == f"matchmaking:{DEFAULT_PORTS['matchmaking'][0]}"
    )
    env = services["matchmaking"]["environment"]
    assert env["HEBEI_MATCHMAKING_TABLE_ADDRESS"] == f"table:{DEFAULT_PORTS['table'][0]}"
    assert env["HEBEI_MATCHMAKING_LEDGER_ADDRESS"] == f"ledger:{DEFAULT_PORTS['ledger'][0]}"
    botservice = services["botservice"]
    env = botservice["environment"]
    assert env["HEBEI_BOTSERVICE_TABLE_ADDRESS"] == f"table:{DEFAULT_PORTS['table'][0]}"
    assert not {"HEBEI_DATABASE_URL", "HEBEI_BROKER_URL", "HEBEI_TABLE_LOG_KEY"} & set(env)
    assert botservice["depends_on"]["table"]["condition"] == "service_healthy"
    for name in ("postgres", "redis"):
        test = services[name]["healthcheck"]["test"]
        assert test[0] in ("CMD", "CMD-SHELL") and "nc " not in " ".join(test)


def test_the_web_gateway_is_health_checked_over_http_and_calls_the_services():
    from hebei.web.config import DEFAULT_PORT

    web = compose_config()["services"]["web"]
    assert web["command"] == ["python", "-m", "hebei.web"]
    health = f"http://127.0.0.1:{DEFAULT_PORT}/api/health"
    assert web["healthcheck"]["test"] == ["CMD", "python", "-m", "hebei.common.healthcheck", health]
    env = web["environment"]
    assert env["HEBEI_HEALTHCHECK"] == health  # the image's HEALTHCHECK, without an argument
    assert int(env["HEBEI_WEB_PORT"]) == DEFAULT_PORT
    assert [(p["target"], p["host_ip"]) for p in web["ports"]] == [(DEFAULT_PORT, "127.0.0.1")]
    for service in ("table", "matchmaking", "ledger"):
        address = f"{service}:{DEFAULT_PORTS[service][0]}"
        assert env[f"HEBEI_WEB_{service.upper()}_ADDRESS"] == address
        assert web["depends_on"][service]["condition"] == "service_healthy"
    metrics = dict(item.split("=") for item in env["HEBEI_WEB_METRICS"].split(","))
    assert metrics == {s: f"{s}:{DEFAULT_PORTS[s][1]}" for s in ("table", "matchmaking", "ledger")}
    assert env["HEBEI_OPERATOR_TOKEN"]  # unlocks the operators' view
    assert env["HEBEI_SERVICE_TOKEN"]  # the services' own pools (README, "Security")
    assert env["HEBEI_WEB_TRUSTED_PROXIES"]  # the TLS proxy in front names the clients
    assert not {"HEBEI_DATABASE_URL", "HEBEI_TABLE_LOG_KEY"} & set(env)
    assert web["read_only"] is True and web["cap_drop"] == ["ALL"]


def test_bot_workers_scale_with_scale_and_serve_metrics():
    bots = compose_config()["services"]["bots"]
    assert "ports" not in bots and "container_name" not in bots  # --scale bots=N works
    assert bots["command"][:3] == ["hebei", "bots", "worker"]
    assert bots["command"][bots["command"].index("--metrics-port") + 1] == "9104"
    assert bots["healthcheck"]["test"][-1] == "http://127.0.0.1:9104/metrics"
    assert bots["deploy"]["replicas"] == 2
    assert bots["environment"]["HEBEI_BROKER_URL"].startswith("redis://:")
    assert bots["environment"]["HEBEI_BOTS_REDIS_URL"].startswith("redis://:")


def test_rabbitmq_is_a_profile():
    assert "rabbitmq" not in compose_config()["services"]
    with_rabbit = compose_config("--profile", "rabbitmq")["services"]
    assert with_rabbit["rabbitmq"]["healthcheck"]["test"][:2] == ["CMD", "rabbitmq-diagnostics"]
    assert with_rabbit["matchmaking"]["depends_on"]["rabbitmq"]["required"] is False


def test_prometheus_and_grafana_are_provisioned_from_the_bundle():
    services = compose_config()["services"]
    mounts = {m["target"]: m["source"] for m in services["prometheus"]["volumes"]}
    assert Path(mounts["/etc/prometheus"]) == MONITORING
    mounts = {m["target"]: m["source"] for m in services["grafana"]["volumes"]}
    assert Path(mounts["/var/lib/grafana/dashboards/hebei"]) == MONITORING / "dashboards"
    provisioning = Path(mounts["/etc/grafana/provisioning"])
    source = yaml.safe_load((provisioning / "datasources" / "prometheus.yml").read_text())
    (datasource,) = source["datasources"]
    assert datasource["uid"] == "prometheus" and datasource["url"] == "http://prometheus:9090"
    boards = yaml.safe_load((provisioning / "dashboards" / "hebei.yml").read_text())
    assert boards["providers"][0]["options"]["path"] == "/var/lib/grafana/dashboards/hebei"
    assert "postgres-exporter" in services


def test_compose_prometheus_scrapes_every_job_the_alerts_select():
    config = yaml.safe_load((MONITORING / "prometheus.yml").read_text())
    jobs = {job["job_name"]: job for job in config["scrape_configs"]}
    assert set(METRICS_JOBS.values()) | {"postgres"} <= set(jobs)
    for service in STATEFUL:
        (static,) = jobs[METRICS_JOBS[service]]["static_configs"]
        assert static["targets"] == [f"{service}:{DEFAULT_PORTS[service][1]}"]
    assert jobs["hebei-bots"]["dns_sd_configs"][0]["port"] == 9104
    # every gRPC service (the bot service's replicas by DNS, like the workers)
    assert {f"hebei-{service}" for service in DEFAULT_PORTS} <= set(jobs)
    (dns,) = jobs["hebei-botservice"]["dns_sd_configs"]
    assert dns["names"] == ["botservice"] and dns["port"] == DEFAULT_PORTS["botservice"][1]
    assert config["rule_files"] == ["rules/*.yml", "alerts/*.yml"]
    # the web gateway's own /metrics port, and the exporters the broker and database alerts read
    web = compose_config()["services"]["web"]["environment"]
    assert jobs["hebei-web"]["static_configs"][0]["targets"] == [
        f"web:{web['HEBEI_WEB_METRICS_PORT']}"
    ]
    assert jobs["redis"]["static_configs"][0]["targets"] == ["redis-exporter:9121"]
    (rabbit,) = jobs["rabbitmq"]["dns_sd_configs"]  # no target without the profile
    assert rabbit["names"] == ["rabbitmq"] and rabbit["port"] == 15692
    assert jobs["rabbitmq"]["params"]["family"] == ["queue_coarse_metrics"]


def test_alerts_reach_alertmanager_and_the_exporters_run():
    services = compose_config()["services"]
    config = yaml.safe_load((MONITORING / "prometheus.yml").read_text())
    (alertmanagers,) = config["alerting"]["alertmanagers"]
    assert alertmanagers["static_configs"][0]["targets"] == ["alertmanager:9093"]
    alertmanager = services["alertmanager"]
    mounts = {m["target"]: m["source"] for m in alertmanager["volumes"]}
    assert Path(mounts["/etc/alertmanager/alertmanager.yml"]) == MONITORING / "alertmanager.yml"
    assert "--config.file=/etc/alertmanager/alertmanager.yml" in alertmanager["command"]
    assert services["prometheus"]["depends_on"]["alertmanager"]["condition"] == "service_healthy"
    redis = services["redis-exporter"]["environment"]
    assert redis["REDIS_ADDR"] == "redis://redis:6379"
    assert redis["REDIS_EXPORTER_CHECK_KEYS"] == "db0=bots.*"  # the Celery queues' lists
    assert "postgres-exporter" in services


@pytest.mark.parametrize("service", [*HEBEI_SERVICES, "web"])
def test_the_commands_the_containers_run_exist(service: str):
    assert importlib.util.find_spec(f"hebei.{service}.__main__") is not None
    command = compose_config()["services"][service]["command"]
    assert command == ["python", "-m", f"hebei.{service}"]


def test_the_installed_package_carries_every_file_read_at_run_time(tmp_path: Path):
    """The image installs a wheel (not the source tree): the web pages and the migrations
    must be in it, or the gateway cannot start and the services cannot migrate."""
    source = tmp_path / "src"
    source.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, source / name)
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info")
    shutil.copytree(ROOT / "services", source / "services", ignore=ignore)
    result = run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
         "-w", str(tmp_path / "dist"), str(source)]
    )  # fmt: skip
    assert result.returncode == 0, result.stdout + result.stderr
    (wheel,) = (tmp_path / "dist").glob("hebei-*.whl")
    packaged = set(zipfile.ZipFile(wheel).namelist())
    services = ROOT / "services"
    needed = {
        str(path.relative_to(services))
        for path in [*(services / "hebei" / "web" / "static").rglob("*"), *services.rglob("*.sql")]
        if path.is_file()
    }
    assert "hebei/web/static/index.html" in needed
    assert sorted(needed - packaged) == []


def container_env(service: str, **overrides: str) -> dict[str, str]:
    """What the container of a compose service sees: the image's ENV, then compose's."""
    final = instructions()[max(i for i, (w, _) in enumerate(instructions()) if w == "FROM") :]
    image = dict(
        pair.split("=", 1)
        for word, rest in final
        if word == "ENV"
        for pair in shlex.split(rest)
        if not pair.startswith("PATH=")
    )
    env = {
        "PATH": os.environ["PATH"],
        **image,
        **compose_config()["services"][service]["environment"],
    }
    return {**env, **overrides}


def start(
    argv: list[str], env: dict[str, str], log: Path, pattern: str
) -> tuple[subprocess.Popen, re.Match]:
    """Run a container's command as a process here and wait for the line matching pattern."""
    with log.open("w") as out:
        process = subprocess.Popen(
            argv, env=env, stdout=out, stderr=subprocess.STDOUT, cwd=log.parent
        )
    deadline = time.monotonic() + 120  # a generous ceiling, not a measurement
    while time.monotonic() < deadline:
        match = re.search(pattern, log.read_text())
        if match or process.poll() is not None:
            break
        time.sleep(0.1)
    assert match, log.read_text()[-2000:]
    return process, match


def stop(process: subprocess.Popen) -> int:
    process.send_signal(signal.SIGTERM)
    try:
        return process.wait(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()


def test_the_bot_services_container_settings_start_it_healthy(tmp_path: Path):
    """The compose environment (tokens, no database) and the image's (0.0.0.0: a service
    token is required) are enough for the bot service to serve and pass its health check."""
    env = container_env(
        "botservice",
        HEBEI_BOTSERVICE_PORT="0",
        HEBEI_BOTSERVICE_METRICS_PORT="0",
        HEBEI_DATA_DIR=str(tmp_path),
    )
    argv = [sys.executable, *compose_config()["services"]["botservice"]["command"][1:]]
    # The example env file's placeholders are refused beyond loopback: one line, exit 2.
    process, _ = start(argv, env, tmp_path / "placeholder.log", r"refused when listening")
    assert process.wait(timeout=60) == 2
    assert "HEBEI_OPERATOR_TOKEN refused" in (tmp_path / "placeholder.log").read_text()
    env |= {
        "HEBEI_OPERATOR_TOKEN": secrets.token_hex(32),
        "HEBEI_SERVICE_TOKEN": secrets.token_hex(32),
    }
    process, match = start(argv, env, tmp_path / "botservice.log", r"on port (\d+)")
    try:
        assert healthcheck.main([f"127.0.0.1:{match.group(1)}"]) == 0
    finally:
        assert stop(process) == 0
    process, _ = start(
        argv, {**env, "HEBEI_SERVICE_TOKEN": ""}, tmp_path / "refused.log", r"HEBEI_SERVICE_TOKEN"
    )
    assert process.wait(timeout=60) == 2  # without its token it refuses to listen beyond loopback


def test_the_web_gateways_container_settings_start_it_healthy(tmp_path: Path):
    env = container_env("web", HEBEI_WEB_PORT="0", HEBEI_DATA_DIR=str(tmp_path))
    argv = [sys.executable, *compose_config()["services"]["web"]["command"][1:]]
    process, match = start(argv, env, tmp_path / "web.log", r"web: http://[^:]+:(\d+)/")
    try:
        target = env["HEBEI_HEALTHCHECK"].replace(":8080/", f":{match.group(1)}/")
        assert target.endswith("/api/health")
        assert healthcheck.main([target]) == 0
    finally:
        assert stop(process) == 0
