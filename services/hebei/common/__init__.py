"""One server bootstrap shared by every hebei service.

``config`` (environment, validated), ``server`` (create_server / serve: health, reflection,
interceptors, graceful stop, metrics endpoint), ``metrics`` (every Prometheus metric of the
bootstrap), ``auth`` (operator, service and seat tokens), ``errors`` (domain errors and their
one mapping to gRPC status codes), ``logs`` (JSON logs), ``client`` (channels with deadlines,
retries for idempotent methods, client metrics) and ``tls``.

Importing this package imports nothing else, so ``hebei.common.embedded`` stays light.
"""
