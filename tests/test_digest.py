"""``reflectgit.digest``: the same digests as hashlib, without OpenSSL's import for small data."""

from __future__ import annotations

import hashlib
import subprocess
import sys

import pytest

from reflectgit import digest


@pytest.mark.parametrize(
    "size",
    [
        *(0, 1, 63, 64, 65, 4096),
        *(digest.SMALL_ENOUGH - 1, digest.SMALL_ENOUGH, digest.SMALL_ENOUGH + 1, 600 * 1024),
        *(digest.LARGE - 1, digest.LARGE, digest.LARGE + 1),
    ],
)
def test_every_size_gives_hashlibs_digest(size: int) -> None:
    data = bytes(i % 251 for i in range(size))
    assert digest.sha1(data) == hashlib.sha1(data).hexdigest()
    assert digest.sha1_bytes(bytearray(data)) == hashlib.sha1(data).digest()
    assert digest.sha256(data) == hashlib.sha256(data).hexdigest()
    assert digest.sha1(data) != digest.sha1(data + b"\0")


def test_small_data_never_loads_openssl_and_large_data_does() -> None:
    probe = (
        "import sys\nfrom reflectgit import digest\n"
        "digest.sha1(b'blob 3\\0abc'); digest.sha256(b'project')\n"
        "print('_hashlib' in sys.modules)\n"
        "digest.sha1(bytes(digest.LARGE))\nprint('_hashlib' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "True"]
