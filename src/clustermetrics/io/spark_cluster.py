"""Where Spark runs: the master URL a session is started with, checked before anything
starts, and the paths a cluster's executors are given.

A master names local mode (``local[N]``: Spark in this process's own JVM) or a cluster
(standalone ``spark://``, YARN, Kubernetes), whose executors run in other processes,
usually on other machines, and open the files themselves.
"""

from __future__ import annotations

import os
import re
import socket
import time
from typing import Any

from .formats import format_of

__all__ = ["CONNECT_TIMEOUT_S", "EXECUTOR_TIMEOUT_S", "LOCAL_MASTER", "MASTER_FORMS",
           "check_master", "cluster_paths", "is_local", "reach_master", "wait_for_executors"]

#: the master of the session started when none is given (Spark in this process's JVM)
LOCAL_MASTER = "local[2]"
#: how long a cluster's master may take to accept a connection before it is an error
CONNECT_TIMEOUT_S = 10.0
#: how long a standalone cluster may take to start a first executor for our session
EXECUTOR_TIMEOUT_S = 120.0
#: the master URLs accepted, as messages and help texts list them
MASTER_FORMS = ("local", "local[N]", "local[*]", "spark://HOST:PORT[,HOST:PORT...]", "yarn",
                "k8s://[https://]HOST[:PORT]")

_HOST = r"(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?)"
_LOCAL = re.compile(r"local(?:\[(?:\*|[1-9][0-9]*)(?:,[1-9][0-9]*)?\])?")
_STANDALONE = re.compile(rf"spark://{_HOST}:[0-9]{{1,5}}(?:,{_HOST}:[0-9]{{1,5}})*")
_K8S = re.compile(rf"k8s://(?:https?://)?{_HOST}(?::[0-9]{{1,5}})?/?")
_ADDRESS = re.compile(rf"({_HOST})(?::([0-9]{{1,5}}))?")


def check_master(master: object, option: str = "master") -> str:
    """``master`` when it is a Spark master URL of :data:`MASTER_FORMS`, else a
    ValueError naming ``option`` (a port outside 1..65535 included)."""
    if not isinstance(master, str):
        raise ValueError(f"{option} must be a Spark master URL (a string), got "
                         f"{type(master).__name__}")
    well_formed = (_LOCAL.fullmatch(master) or _STANDALONE.fullmatch(master)
                   or _K8S.fullmatch(master) or master == "yarn")
    if not well_formed or not all(0 < port < 65536 for _, port in _addresses(master)):
        raise ValueError(f"{option} {master!r} is not a Spark master URL; give "
                         f"{', '.join(MASTER_FORMS[:-1])} or {MASTER_FORMS[-1]}")
    return master


def is_local(master: str) -> bool:
    """Spark runs in this process's own JVM: its executors see what this process sees."""
    return master.startswith("local")


def _addresses(master: str) -> list[tuple[str, int]]:
    """(host, port) of each address a master URL connects to first (none for local
    mode and YARN, whose address is in the Hadoop configuration)."""
    if master.startswith("spark://"):
        rest, default = master[len("spark://"):], 0
    elif master.startswith("k8s://"):
        rest = master[len("k8s://"):].rstrip("/")
        default = 80 if rest.startswith("http://") else 443
        rest = rest.split("://", 1)[-1]
    else:
        return []
    out = []
    for part in rest.split(","):
        match = _ADDRESS.fullmatch(part)
        if match is None:
            continue
        host = match.group(1).strip("[]")
        out.append((host, int(match.group(2)) if match.group(2) else default))
    return out


def reach_master(master: str, option: str = "master",
                 timeout: float = CONNECT_TIMEOUT_S) -> None:
    """A ValueError naming ``option`` unless some address of ``master`` accepts a
    connection within ``timeout`` seconds: Spark itself would retry an unreachable
    master for minutes before giving up."""
    addresses = _addresses(master)
    reasons = []
    for host, port in addresses:
        try:
            socket.create_connection((host, port), timeout=timeout).close()
            return
        except TimeoutError:
            reasons.append(f"{host}:{port} did not answer within {timeout:g} s")
        except OSError as exc:
            reasons.append(f"{host}:{port}: {exc.strerror or exc}")
    if addresses:
        raise ValueError(f"{option} {master!r}: cannot connect ({'; '.join(reasons)})")


def wait_for_executors(context: Any, master: str, option: str = "master") -> None:
    """Wait until a standalone cluster has started an executor for ``context`` (a
    SparkContext), or a ValueError naming ``option`` after :data:`EXECUTOR_TIMEOUT_S`
    seconds: a cluster whose workers cannot host the executor asked for (too little
    memory or too few cores) would otherwise leave every job waiting for ever. Executors
    started on demand (dynamic allocation) and other cluster managers are not waited for."""
    conf = context.getConf()
    if not master.startswith("spark://") or \
            conf.get("spark.dynamicAllocation.enabled", "false").lower() == "true":
        return
    timeout = EXECUTOR_TIMEOUT_S
    deadline = time.monotonic() + timeout
    tracker = context._jsc.sc().statusTracker()
    while len(tracker.getExecutorInfos()) < 2:  # the driver is listed too
        if time.monotonic() > deadline:
            raise ValueError(
                f"{option} {master!r}: no executor started within {timeout:g} s; the "
                "workers may lack the memory or cores an executor asks for "
                f"(spark.executor.memory {conf.get('spark.executor.memory', '1g')}, "
                f"spark.executor.cores {conf.get('spark.executor.cores', 'all')})")
        time.sleep(0.1)


# names Spark skips (hidden, or its own output's "_SUCCESS"), and what Hadoop cannot hold
_SKIPPED = ("_", ".")
# suffixes Hadoop decompresses by, whatever the file holds
_CODECS = (".gz", ".bz2", ".deflate", ".lz4", ".snappy", ".zst")


def cluster_paths(files: list[str], source: object) -> dict[str, str]:
    """{path a cluster's executors open: the file}: the absolute path, its glob characters
    escaped (Spark reads every path as a pattern). Executors open it on their own machines,
    so they cannot be given links in a folder of this one; a name Spark would skip or
    misread is an error naming ``source``."""
    out = {}
    for path in files:
        full = os.path.abspath(path)
        name = os.path.basename(full)
        problem = (f"its name starts with {name[0]!r}, which Spark skips"
                   if name.startswith(_SKIPPED) else
                   "it holds ':', which a Hadoop path cannot" if ":" in full else
                   _codec_problem(full, name))
        if problem:
            raise ValueError(f"{source}: {path}: on a Spark cluster executors open each file "
                             f"by its own name, and {problem}; rename the file, or read it "
                             "in local mode")
        out[re.sub(r"([\\{}\[\]*?])", r"\\\1", full)] = path
    return out


def _codec_problem(full: str, name: str) -> str | None:
    """Hadoop decompresses by a name's case-sensitive suffix; we by its ``.gz`` alone."""
    kind = format_of(full)
    if not kind.delimited:
        return None
    hadoop = next((codec for codec in _CODECS if name.endswith(codec)), None)
    ours = kind.dialect.compression if kind.dialect and kind.compressed(full) else None
    if hadoop == ours:
        return None
    return (f"Hadoop would read it as {hadoop} compressed" if hadoop else
            f"Hadoop would not decompress it (its suffix is not {ours!r} in lower case)")
