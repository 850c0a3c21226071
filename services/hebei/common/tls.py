"""TLS chosen by configuration: a server's certificate (and the CA of its clients' certificates),
and a client's trust and certificate for the channels it opens to other services.

Server side (``TlsConfig``): ``HEBEI_TLS_CERT`` + ``HEBEI_TLS_KEY``, and ``HEBEI_TLS_CLIENT_CA``
to require client certificates it signed (mutual TLS).

Client side (``ClientTls``), for every channel a service (or a bot worker) opens to another:
``HEBEI_TLS_CA``, the CA that signed the servers' certificates (``system``: the system's
roots), and ``HEBEI_TLS_CLIENT_CERT`` + ``HEBEI_TLS_CLIENT_KEY``, the certificate this process
presents to servers that require one. None set: plaintext channels.

Every variable may be overridden per service (``HEBEI_TABLE_TLS_CA``, ``HEBEI_BOTS_TLS_CA``...).
The files are checked when the configuration is read: an unreadable or garbled PEM, or a
certificate that is not for its key, stops the process with one line naming the variables
(grpc itself would only say "Failed to bind to address" or fail every handshake later).
"""

from __future__ import annotations

import ssl
from dataclasses import dataclass
from pathlib import Path

import grpc

from hebei.common.env import ConfigError, EnvReader

SYSTEM_ROOTS = "system"  # HEBEI_TLS_CA=system: trust the system's root certificates


class _EncryptedKey(Exception):
    """The key file asked for a password (gRPC cannot use encrypted keys)."""


def _no_password() -> bytes:
    raise _EncryptedKey


def _reason(error: ssl.SSLError) -> str:
    """OpenSSL's reason in words ("no certificate or crl found"); "PEM lib" says only that no
    PEM data could be read."""
    if not error.reason or error.reason == "PEM_LIB":
        return "no PEM data could be read"
    return error.reason.replace("_", " ").lower()


def check_ca(path: Path, name: str) -> None:
    """ConfigError unless ``path`` holds at least one PEM certificate (``name``: what the
    message calls it, e.g. ``HEBEI_TLS_CA`` or ``--ca-file``)."""
    try:
        ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT).load_verify_locations(cafile=str(path))
    except (ssl.SSLError, OSError) as exc:
        detail = _reason(exc) if isinstance(exc, ssl.SSLError) else exc.strerror or str(exc)
        raise ConfigError(f"{name} ({path}) is not a readable PEM certificate: {detail}") from None


def check_pair(cert: Path, key: Path, cert_name: str, key_name: str) -> None:
    """ConfigError unless ``cert`` is a PEM certificate and ``key`` its (unencrypted) key."""
    check_ca(cert, cert_name)  # the certificate alone parses
    try:
        ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT).load_cert_chain(
            str(cert), str(key), password=_no_password
        )
    except _EncryptedKey:
        raise ConfigError(
            f"{key_name} ({key}) is encrypted: give the key without a passphrase"
        ) from None
    except ssl.SSLError as exc:
        if exc.reason == "KEY_VALUES_MISMATCH":
            raise ConfigError(
                f"{cert_name} ({cert}) and {key_name} ({key}) do not match: the certificate is "
                "not for this key"
            ) from None
        raise ConfigError(
            f"{key_name} ({key}) is not a readable PEM private key: {_reason(exc)}"
        ) from None
    except OSError as exc:
        raise ConfigError(f"{key_name} ({key}): {exc.strerror or exc}") from None


def _not_a_file(path: Path) -> str:
    """Why ``path``, which is not a regular file, cannot be read as a PEM file."""
    if not path.exists():
        return "no such file"
    if path.is_dir():
        return "is a directory, expected a PEM file"
    return "is not a regular file (a device, a pipe...), expected a PEM file"


def _pair_from_env(read: EnvReader, cert_var: str, key_var: str) -> tuple[Path, Path] | None:
    """A certificate and its key, both or neither, checked to match."""
    cert, key = read.file(cert_var, shared=True), read.file(key_var, shared=True)
    if cert is None and key is None:
        return None
    cert_name, key_name = read.source(cert_var, shared=True), read.source(key_var, shared=True)
    if cert is None or key is None:
        missing, given = (cert_name, key_name) if cert is None else (key_name, cert_name)
        raise ConfigError(f"{missing} is required when {given} is set")
    check_pair(cert, key, cert_name, key_name)
    return cert, key


@dataclass(frozen=True, slots=True)
class TlsConfig:
    """PEM files: the server's certificate and key, and optionally a CA for client certs."""

    cert_file: Path
    key_file: Path
    client_ca_file: Path | None = None  # set: clients must present a certificate it signed

    @classmethod
    def from_env(cls, read: EnvReader) -> TlsConfig | None:
        """``HEBEI_TLS_CERT`` + ``HEBEI_TLS_KEY`` (both or neither), ``HEBEI_TLS_CLIENT_CA``."""
        pair = _pair_from_env(read, "TLS_CERT", "TLS_KEY")
        client_ca = read.file("TLS_CLIENT_CA", shared=True)
        if client_ca is not None:
            check_ca(client_ca, read.source("TLS_CLIENT_CA", shared=True))
        if pair is None:
            if client_ca is not None:
                raise ConfigError("HEBEI_TLS_CLIENT_CA needs HEBEI_TLS_CERT and HEBEI_TLS_KEY")
            return None
        return cls(pair[0], pair[1], client_ca)

    def check(self) -> None:
        """ConfigError naming the file unless the certificate, its key and the client CA load
        (for a TlsConfig built in code rather than read from the environment)."""
        check_pair(self.cert_file, self.key_file, "the TLS certificate", "the TLS key")
        if self.client_ca_file is not None:
            check_ca(self.client_ca_file, "the TLS client CA")

    def server_credentials(self) -> grpc.ServerCredentials:
        """Credentials for ``server.add_secure_port`` (the files checked first)."""
        self.check()
        ca = self.client_ca_file.read_bytes() if self.client_ca_file else None
        return grpc.ssl_server_credentials(
            [(self.key_file.read_bytes(), self.cert_file.read_bytes())],
            root_certificates=ca,
            require_client_auth=ca is not None,
        )


@dataclass(frozen=True, slots=True)
class ClientTls:
    """How this process opens TLS channels to other services: the CA it trusts (None: the
    system's roots) and the certificate it presents (mutual TLS), if any."""

    ca_file: Path | None = None
    cert_file: Path | None = None
    key_file: Path | None = None

    @classmethod
    def from_env(cls, read: EnvReader) -> ClientTls | None:
        """``HEBEI_TLS_CA`` (a file, or ``system``), ``HEBEI_TLS_CLIENT_CERT`` +
        ``HEBEI_TLS_CLIENT_KEY`` (both or neither); None when none is set (plaintext)."""
        raw_ca = read.optional_text("TLS_CA", shared=True)
        system = raw_ca is not None and raw_ca.lower() == SYSTEM_ROOTS
        ca = None if system else read.file("TLS_CA", shared=True)
        if ca is not None:
            check_ca(ca, read.source("TLS_CA", shared=True))
        pair = _pair_from_env(read, "TLS_CLIENT_CERT", "TLS_CLIENT_KEY")
        if ca is None and pair is None and not system:
            return None
        cert, key = pair if pair is not None else (None, None)
        return cls(ca, cert, key)

    @classmethod
    def from_options(
        cls,
        ca_file: Path | None,
        cert_file: Path | None,
        key_file: Path | None,
        *,
        names: tuple[str, str, str] = ("--ca-file", "--cert-file", "--key-file"),
    ) -> ClientTls:
        """From command-line options, checked (ConfigError names the options)."""
        ca_name, cert_name, key_name = names
        for path, name in ((ca_file, ca_name), (cert_file, cert_name), (key_file, key_name)):
            if path is not None and not path.is_file():
                raise ConfigError(f"{name} {path}: {_not_a_file(path)}")
        if (cert_file is None) != (key_file is None):
            missing, given = (cert_name, key_name) if cert_file is None else (key_name, cert_name)
            raise ConfigError(f"{missing} is required with {given}")
        if ca_file is not None:
            check_ca(ca_file, ca_name)
        if cert_file is not None and key_file is not None:
            check_pair(cert_file, key_file, cert_name, key_name)
        return cls(ca_file, cert_file, key_file)

    def credentials(self) -> grpc.ChannelCredentials:
        """The channel credentials of these files."""
        return channel_credentials(self.ca_file, self.cert_file, self.key_file)


def channel_credentials(
    ca_file: Path | None = None, cert_file: Path | None = None, key_file: Path | None = None
) -> grpc.ChannelCredentials:
    """Client TLS credentials: a CA to trust (default: system roots) and an optional client cert."""
    return grpc.ssl_channel_credentials(
        root_certificates=ca_file.read_bytes() if ca_file else None,
        private_key=key_file.read_bytes() if key_file else None,
        certificate_chain=cert_file.read_bytes() if cert_file else None,
    )
