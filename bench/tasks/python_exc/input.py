"""Upload service settings and request validation.

Settings are read from a table of defaults that deployments override; sizes
are written with a unit suffix ("512K", "25M", "2G").
"""

import re

DEFAULTS = {
    "service_name": "uploads",
    "listen": "0.0.0.0:8080",
    "workers": "4",
    "max_upload": "25M",
    "max_part": "512K",
    "chunk_size": "64K",
    "tmp_quota": "2G",
    "timeout_s": "30s",
    "allowed_types": "image/png,image/jpeg,application/pdf,text/csv",
}

UNITS = {"": 1, "K": 1024, "M": 1024 ** 2, "G": 1024 ** 3}

# Used by the request loop before the settings object exists.
WORKERS = int(DEFAULTS["workers"])
TIMEOUT_S = int(DEFAULTS["timeout_s"])


def parse_size(text):
    """'512K' -> 524288.  The unit is the last character, if it is a letter."""
    text = text.strip().upper()
    unit = text[-1] if text[-1].isalpha() else ""
    number = text[:-1] if unit else text
    return int(number) * UNITS[unit]


def parse_int(text, lo, hi):
    value = int(text)
    if not lo <= value <= hi:
        raise ValueError(f"{value} not in [{lo}, {hi}]")
    return value


def parse_listen(text):
    host, _, port = text.rpartition(":")
    return host or "0.0.0.0", parse_int(port, 1, 65535)


class Settings:
    def __init__(self, raw):
        self.service_name = raw["service_name"]
        self.listen = parse_listen(raw["listen"])
        self.workers = parse_int(raw["workers"], 1, 64)
        self.max_upload = parse_size(raw["max_upload"])
        self.max_part = parse_size(raw["max_part"])
        self.chunk_size = parse_size(raw["chunk_size"])
        self.tmp_quota = parse_size(raw["tmp_quota"])
        self.timeout_s = TIMEOUT_S
        self.allowed_types = tuple(t.strip() for t in raw["allowed_types"].split(","))
        if self.max_part > self.max_upload:
            raise ValueError("max_part exceeds max_upload")

    def describe(self):
        host, port = self.listen
        return (f"{self.service_name} on {host}:{port}, {self.workers} workers, "
                f"uploads up to {human(self.max_upload)}")


def human(n):
    for unit in ("B", "KiB", "MiB", "GiB"):
        if n < 1024 or unit == "GiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024


SETTINGS = Settings(DEFAULTS)

FILENAME_RE = re.compile(r"^[A-Za-z0-9._-]{1,128}$")


class UploadError(Exception):
    def __init__(self, status, message):
        super().__init__(message)
        self.status = status


class Request:
    def __init__(self, method, path, headers, body=b""):
        self.method = method
        self.path = path
        self.headers = {k.lower(): v for k, v in headers.items()}
        self.body = body

    def header(self, name, default=None):
        return self.headers.get(name.lower(), default)


def check_method(req):
    if req.method not in ("POST", "PUT"):
        raise UploadError(405, f"method {req.method} not allowed")


def check_type(req):
    ctype = req.header("Content-Type", "").split(";")[0].strip()
    if ctype not in SETTINGS.allowed_types:
        raise UploadError(415, f"type {ctype or '?'} not allowed")
    return ctype


def check_size(req):
    declared = req.header("Content-Length")
    if declared is None:
        raise UploadError(411, "length required")
    size = int(declared)
    if size > SETTINGS.max_upload:
        raise UploadError(413, f"{human(size)} exceeds {human(SETTINGS.max_upload)}")
    if size != len(req.body):
        raise UploadError(400, "length mismatch")
    return size


def check_name(req):
    name = req.path.rsplit("/", 1)[-1]
    if not FILENAME_RE.match(name):
        raise UploadError(400, f"bad file name {name!r}")
    return name


def chunks(data, size):
    for start in range(0, len(data), size):
        yield data[start:start + size]


def handle(req, store):
    check_method(req)
    ctype = check_type(req)
    size = check_size(req)
    name = check_name(req)
    written = 0
    for part in chunks(req.body, SETTINGS.chunk_size):
        store.setdefault(name, bytearray()).extend(part)
        written += len(part)
    return 201, {"name": name, "type": ctype, "bytes": written, "declared": size}


def demo():
    store = {}
    requests = [
        Request("POST", "/upload/report.pdf", {"Content-Type": "application/pdf", "Content-Length": "5"}, b"%PDF-"),
        Request("GET", "/upload/x.png", {}),
        Request("PUT", "/upload/a b.csv", {"Content-Type": "text/csv", "Content-Length": "3"}, b"a,b"),
        Request("POST", "/upload/big.png", {"Content-Type": "image/png", "Content-Length": str(1 << 30)}),
    ]
    for req in requests:
        try:
            status, info = handle(req, store)
        except UploadError as err:
            status, info = err.status, str(err)
        print(req.method, req.path, status, info)
    print(SETTINGS.describe())


if __name__ == "__main__":
    demo()
