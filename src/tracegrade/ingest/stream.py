"""A trace file as a stream of bytes, decompressed as it is read, within stated limits.

Nothing holds a whole file: memory is bounded by the record limit, whatever the file's
size. A compressed file may inflate to at most `max_inflation` times its size (but
always to 64 MiB): OTLP/JSON lines compress 33x with gzip and 48x with zstd -19
(measured on ADK spans), while a gzip bomb reaches 1,000x and zstd far more. Past the
limit reading stops, with the records before it kept.
"""

from __future__ import annotations

import gzip
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

import zstandard

from tracegrade.errors import IngestError

MIB = 1024 * 1024
GZIP_MAGIC = b"\x1f\x8b"
ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"
CHUNK = 1 * MIB


@dataclass(frozen=True)
class Limits:
    """What one file may cost: the largest record, and how far compression may inflate."""

    max_record_bytes: int = 64 * MIB
    """A JSON line or length-prefixed record (after its own decompression); as `serve`'s body."""
    max_inflation: int = 1000
    """A compressed file stops after this many times its size (at least `max_record_bytes`)."""

    def inflated_limit(self, compressed_size: int) -> int:
        return max(self.max_record_bytes, self.max_inflation * compressed_size)


class Source:
    """One file's bytes, decompressed when it is gzip or zstd."""

    def __init__(self, path: Path, limits: Limits) -> None:
        self.path = path
        try:
            self._file: BinaryIO = path.open("rb")
            magic = self._file.read(4)
            self._file.seek(0)
            size = path.stat().st_size
        except OSError as exc:
            raise IngestError(f"cannot read {path}: {exc.strerror or exc}") from None
        self._limit: int | None = None
        self._stream: BinaryIO | gzip.GzipFile | zstandard.ZstdDecompressionReader = self._file
        if magic.startswith(GZIP_MAGIC):
            self._stream = gzip.GzipFile(fileobj=self._file)
        elif magic.startswith(ZSTD_MAGIC):
            # Concatenated frames are normal here (the Collector writes one per flush).
            self._stream = zstandard.ZstdDecompressor().stream_reader(
                self._file, read_across_frames=True
            )
        if self._stream is not self._file:
            self._limit = limits.inflated_limit(size)
        self.most_bytes = size if self._limit is None else self._limit
        """The most this source can give: the file's size, or its inflation limit."""
        self._offset = 0  # bytes taken from the stream, after decompression
        self._ahead = b""  # taken by peek() and not yet read

    @property
    def position(self) -> int:
        """Bytes read so far, after decompression."""
        return self._offset - len(self._ahead)

    def peek(self, size: int) -> bytes:
        if len(self._ahead) < size:
            self._ahead += self._read_exact(size - len(self._ahead))
        return self._ahead[:size]

    def read(self, size: int) -> bytes:
        """Up to `size` bytes (fewer only at the end); IngestError past a limit or if corrupt."""
        ahead, self._ahead = self._ahead[:size], self._ahead[size:]
        return ahead + self._read_exact(size - len(ahead))

    def skip(self, size: int) -> int:
        """Read past `size` bytes without keeping them; how many there were."""
        skipped = 0
        while skipped < size and (part := self.read(min(CHUNK, size - skipped))):
            skipped += len(part)
        return skipped

    def chunks(self) -> Iterator[bytes]:
        if self._ahead:
            yield self._ahead
            self._ahead = b""
        while chunk := self._read_some(CHUNK):
            yield chunk

    def close(self) -> None:
        self._stream.close()
        self._file.close()

    def __enter__(self) -> Source:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _read_exact(self, size: int) -> bytes:
        parts = []
        while size > 0 and (part := self._read_some(size)):
            parts.append(part)
            size -= len(part)
        return b"".join(parts)

    def _read_some(self, size: int) -> bytes:
        """Bytes up to the inflation limit are all given; the next read past it raises."""
        if self._limit is not None:
            if self._offset > self._limit:
                raise IngestError(
                    f"inflates to more than {self._limit} bytes ({self._limit // MIB} MiB, "
                    "--max-inflation times the compressed size): stopped there"
                )
            size = min(size, self._limit + 1 - self._offset)
        try:
            data = self._stream.read(size)
        except (OSError, EOFError, zlib.error, zstandard.ZstdError) as exc:
            raise IngestError(f"corrupt compressed data: {exc}") from None
        self._offset += len(data)
        if self._limit is not None and self._offset > self._limit:
            return data[:-1] or self._read_some(1)  # the byte past the limit is not given
        return data
