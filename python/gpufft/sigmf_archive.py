#
# Copyright 2026 gr-gpufft authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""SigMF archives read in place: a tar (.sigmf), compressed or not (.sigmf.gz, .sigmf.xz,
.sigmf.bz2), or a zip (.sigmf.zip), as sigmf-python 1.13 writes them: a folder NAME/
holding NAME.sigmf-meta and NAME.sigmf-data. Nothing is extracted to disk: the samples
of an uncompressed tar are memory-mapped where they lie in the archive; those of a
compressed one are decompressed as they stream.
"""

import lzma
import posixpath
import tarfile
import zipfile
import zlib

# Names that say "SigMF archive": what sigmf-python writes (.sigmf, .sigmf.gz, .sigmf.xz,
# .sigmf.zip), and bz2, which Python's tarfile reads as well.
ARCHIVE_SUFFIXES = (".sigmf", ".sigmf.gz", ".sigmf.xz", ".sigmf.bz2", ".sigmf.zip")

# What a broken or foreign archive raises while it is read.
ARCHIVE_ERRORS = (tarfile.TarError, zipfile.BadZipFile, lzma.LZMAError, zlib.error,
                  EOFError, OSError, ValueError)  # bz2 raises OSError and EOFError

_MAX_META_BYTES = 64 << 20  # metadata is JSON text: more is not SigMF


def is_archive_name(path):
    return path.lower().endswith(ARCHIVE_SUFFIXES)


def _tar_kind(path):
    """tar, tar.gz, tar.xz or tar.bz2, from the first bytes."""
    with open(path, "rb") as f:
        head = f.read(6)
    if head[:2] == b"\x1f\x8b":
        return "tar.gz"
    if head == b"\xfd7zXZ\x00":
        return "tar.xz"
    if head[:3] == b"BZh":
        return "tar.bz2"
    return "tar"


class member:
    """A file inside an archive: its name, size, and where its bytes start in the
    archive file (uncompressed tar only; None when they must be decompressed)."""

    def __init__(self, name, size, offset=None):
        self.name = name
        self.size = size
        self.offset = offset


class archive:
    """What a SigMF archive holds: its kind (tar, tar.gz, tar.xz, tar.bz2, zip), its
    files, and the one recording's metadata (name and bytes)."""

    def __init__(self, path, kind, members, meta_name, meta_bytes):
        self.path = path
        self.kind = kind
        self.members = members  # name -> member
        self.meta_name = meta_name
        self.meta_bytes = meta_bytes

    def where(self, name):
        """How messages name a file inside the archive."""
        return f"{self.path}:{name}"

    def data_member_name(self, dataset):
        """Where the samples are: NAME.sigmf-data beside NAME.sigmf-meta, or the
        metadata's core:dataset in the same folder."""
        if dataset is None:
            return self.meta_name[:-len(".sigmf-meta")] + ".sigmf-data"
        return posixpath.join(posixpath.dirname(self.meta_name), dataset)

    def data_member(self, dataset):
        """The samples' member, or None when the archive lacks it."""
        return self.members.get(self.data_member_name(dataset))


def read_archive(path, error):
    """Lists a SigMF archive and reads its metadata. error(message) makes the exception
    to raise; every message names the archive."""
    try:
        if zipfile.is_zipfile(path):
            kind = "zip"
            members, metas = _list_zip(path)
        else:
            kind = _tar_kind(path)
            members, metas = _list_tar(path, kind)
    except ARCHIVE_ERRORS as e:
        raise error(f"{path}: not a readable SigMF archive (a tar, compressed with gzip, "
                    f"xz or bzip2 or not, or a zip): {type(e).__name__}: {e}") from None
    if not metas:
        listed = ", ".join(sorted(members)[:8]) or "nothing"
        raise error(f"{path}: a SigMF archive ({kind}) without a .sigmf-meta file (it "
                    f"holds: {listed})")
    if len(metas) > 1:
        names = ", ".join(sorted(metas))
        raise error(f"{path}: a SigMF archive ({kind}) of {len(metas)} recordings "
                    f"({names}); "
                    f"one recording is read at a time: extract the archive and give one "
                    f".sigmf-meta file")
    (meta_name, meta_bytes), = metas.items()
    return archive(path, kind, members, meta_name, meta_bytes)


def _list_tar(path, kind):
    members, metas = {}, {}
    compressed = kind != "tar"  # then no member lies as such in the file
    with tarfile.open(path, "r:*") as tar:
        for m in tar:  # one pass: a compressed stream is read forwards only once
            if not m.isfile():
                continue
            members[m.name] = member(m.name, m.size, None if compressed else m.offset_data)
            if m.name.endswith(".sigmf-meta"):
                if m.size > _MAX_META_BYTES:
                    raise ValueError(f"{m.name}: {m.size} bytes of metadata")
                with tar.extractfile(m) as f:
                    metas[m.name] = f.read()
    return members, metas


def _list_zip(path):
    members, metas = {}, {}
    with zipfile.ZipFile(path) as z:
        for info in z.infolist():
            if info.is_dir():
                continue
            members[info.filename] = member(info.filename, info.file_size)
            if info.filename.endswith(".sigmf-meta"):
                if info.file_size > _MAX_META_BYTES:
                    raise ValueError(f"{info.filename}: {info.file_size} bytes of metadata")
                metas[info.filename] = z.read(info)
    return members, metas


class member_stream:
    """The bytes of an archive member, read forwards from `offset` (decompressed as
    they come). read(n) returns exactly n bytes or raises error(...) naming the
    archive: a member shorter than its header says is a broken archive."""

    def __init__(self, arc, name, offset, error):
        self.where = arc.where(name)
        self.error = error
        try:
            if arc.kind == "zip":
                self.container = zipfile.ZipFile(arc.path)
                self.f = self.container.open(name)
            else:
                self.container = tarfile.open(arc.path, "r:*")
                self.f = self.container.extractfile(name)
            self.f.seek(offset)
        except ARCHIVE_ERRORS as e:
            self.close()
            raise error(f"{self.where}: cannot read: {type(e).__name__}: {e}") from None

    def read(self, nbytes):
        try:
            data = self.f.read(nbytes)
        except ARCHIVE_ERRORS as e:
            raise self.error(f"{self.where}: cannot read: {type(e).__name__}: "
                             f"{e}") from None
        if len(data) != nbytes:
            raise self.error(f"{self.where}: ends {nbytes - len(data)} bytes early: the "
                             f"archive is cut short or damaged")
        return data

    def close(self):
        for obj in (getattr(self, "f", None), getattr(self, "container", None)):
            if obj is not None:
                obj.close()
