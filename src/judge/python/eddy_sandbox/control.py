"""The control channel between the trusted worker and its zygote, and between the zygote and
its keepers: frames of `marshal` bytes, with file descriptors passed beside them. Both ends are
eddy's own processes (a candidate never holds one of these sockets), so marshal is read both ways.
Loaded by the zygote: standard library only.
"""

from __future__ import annotations

import marshal
import socket
import struct
from typing import Any


def send_control(sock: socket.socket, obj: Any, fds: list[int] | None = None) -> None:
    """One control message: a frame of marshal bytes, with file descriptors passed beside it."""
    payload = marshal.dumps(obj)
    msg = struct.pack(">I", len(payload)) + payload
    if fds:
        socket.send_fds(sock, [msg], fds)
    else:
        sock.sendall(msg)


def recv_control(sock: socket.socket, max_fds: int) -> tuple[Any, list[int]]:
    """One control message and the descriptors that came with it; EOFError when the peer has gone."""
    data, fds, _flags, _addr = socket.recv_fds(sock, 1 << 16, max_fds)
    if not data:
        raise EOFError
    n = struct.unpack(">I", data[:4])[0]
    while len(data) < 4 + n:
        more = sock.recv(4 + n - len(data))
        if not more:
            raise EOFError
        data += more
    return marshal.loads(data[4 : 4 + n]), fds
