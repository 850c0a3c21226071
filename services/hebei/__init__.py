"""hebei: Hebei Mahjong (河北麻将) tournaments for bots and people."""

import os

__version__ = "0.1.0"

# The platform forks only to run another program (subprocesses; pgserver runs pg_ctl as its
# own user when we are root, which CPython does with fork, not vfork). gRPC's fork handlers,
# on by default in its core, then run in a process whose other threads are inside gRPC and
# can crash the child (SIGSEGV, seen starting the embedded PostgreSQL in the test session).
# Nothing here relies on them: workers are separate processes, multiprocessing uses spawn.
# Set before any module imports grpc; an explicit setting in the environment wins.
os.environ.setdefault("GRPC_ENABLE_FORK_SUPPORT", "false")
