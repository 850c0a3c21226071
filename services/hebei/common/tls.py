"""Optional TLS: server certificates (and client-certificate checks) chosen by configuration."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import grpc

if TYPE_CHECKING:
    from hebei.common.config import EnvReader


@dataclass(frozen=True, slots=True)
class TlsConfig:
    """PEM files: the server's certificate and key, and optionally a CA for client certs."""

    cert_file: Path
    key_file: Path
    client_ca_file: Path | None = None  # set: clients must present a certificate it signed

    @classmethod
    def from_env(cls, read: EnvReader) -> TlsConfig | None:
        """``HEBEI_TLS_CERT`` + ``HEBEI_TLS_KEY`` (both or neither), ``HEBEI_TLS_CLIENT_CA``."""
        from hebei.common.config import ConfigError

        cert = read.file("TLS_CERT", shared=True)
        key = read.file("TLS_KEY", shared=True)
        client_ca = read.file("TLS_CLIENT_CA", shared=True)
        if cert is None and key is None:
            if client_ca is not None:
                raise ConfigError("HEBEI_TLS_CLIENT_CA needs HEBEI_TLS_CERT and HEBEI_TLS_KEY")
            return None
        if cert is None or key is None:
            missing = "HEBEI_TLS_CERT" if cert is None else "HEBEI_TLS_KEY"
            raise ConfigError(f"{missing} is required when the other TLS file is set")
        return cls(cert, key, client_ca)

    def server_credentials(self) -> grpc.ServerCredentials:
        """Credentials for ``server.add_secure_port``."""
        ca = self.client_ca_file.read_bytes() if self.client_ca_file else None
        return grpc.ssl_server_credentials(
            [(self.key_file.read_bytes(), self.cert_file.read_bytes())],
            root_certificates=ca,
            require_client_auth=ca is not None,
        )


def channel_credentials(
    ca_file: Path | None = None, cert_file: Path | None = None, key_file: Path | None = None
) -> grpc.ChannelCredentials:
    """Client TLS credentials: a CA to trust (default: system roots) and an optional client cert."""
    return grpc.ssl_channel_credentials(
        root_certificates=ca_file.read_bytes() if ca_file else None,
        private_key=key_file.read_bytes() if key_file else None,
        certificate_chain=cert_file.read_bytes() if cert_file else None,
    )
