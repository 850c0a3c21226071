"""The monitoring bundle's source, one module per part: the thresholds, recording rules,
alerts (with their promtool cases), dashboards, Alertmanager's routes, the installation's
site.yml, and :mod:`hebei_monitoring.outputs`, every generated file; ``generate.py`` next to
this package writes them."""
