"""A replica of the ownership tests in a process of its own, for a test to kill -9: it registers,
holds its share of the shards, prints one line "ready" and then sleeps until it is killed.

Usage: python -m tests.integration.common.ownership_replica_main URL SCHEMA SERVICE REPLICA_ID
"""

from __future__ import annotations

import sys
import time

from hebei.common.ownership import Replica


def main() -> None:
    url, schema, service, replica_id = sys.argv[1:5]
    Replica(
        url, schema=schema, service=service, replica_id=replica_id, address=f"{replica_id}:1"
    ).start()
    print("ready", flush=True)
    while True:
        time.sleep(60)


if __name__ == "__main__":
    main()
