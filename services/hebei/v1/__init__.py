"""Generated protobuf and grpc code of the hebei.v1 contracts (protos/hebei/v1).

Do not edit: regenerate with ``make protos``; a test fails when this code is stale.
"""
