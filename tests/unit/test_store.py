"""incremental/store.py: signed files, their JSON and their raw sections."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from skillc.incremental.store import read_signed, write_signed

KEY = b"k" * 32


def test_a_file_round_trips_with_its_raw_sections_back_under_their_keys(tmp_path: Path) -> None:
    data = {"a": [1, "x"], "stats": b"\x00\x01" * 8, "text": "\n", "empty": b""}
    write_signed(tmp_path, "f.json", KEY, data)
    assert read_signed(tmp_path, "f.json", KEY) == data
    raw = (tmp_path / "f.json").read_bytes()
    assert raw.startswith(b"skillc-cache/2 ") and raw.endswith(b"\x00\x01" * 8)  # not base64: as it is


@given(
    st.dictionaries(
        st.text(max_size=5).filter(lambda k: k != "$raw"),
        st.one_of(st.binary(max_size=40), st.integers(-(2**63), 2**63 - 1), st.text(max_size=10)),
        max_size=6,
    )
)
def test_any_mix_of_values_round_trips(data: dict[str, object]) -> None:
    import tempfile

    with tempfile.TemporaryDirectory() as d:
        write_signed(Path(d), "f.json", KEY, data)
        assert read_signed(Path(d), "f.json", KEY) == data


def _resigned(path: Path, payload: bytes) -> None:
    """The file with another payload, signed again as the writer would (a tampering test must get
    past the signature to reach the parsing)."""
    from skillc.incremental import store

    path.write_bytes(b"skillc-cache/2 " + store._mac(KEY, path.name, payload) + b"\n" + payload)


def _framed(body: bytes) -> bytes:
    return b"%d\n" % len(body) + body


def test_a_payload_whose_parts_do_not_add_up_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "f.json"
    body = b'{"a":1,"$raw":[["s",4]]}'
    good = b"%d\n" % len(body) + body + b"abcd"
    _resigned(path, good)
    assert read_signed(tmp_path, "f.json", KEY) == {"a": 1, "s": b"abcd"}
    for bad in (
        good + b"e",  # a byte past the last section
        good[:-1],  # a section cut short
        b"%d\n" % (len(body) + 1) + body + b"abcd",  # a JSON length that is wrong
        b"x\n" + body + b"abcd",  # no length
        b"%d\n" % len(body) + body,  # the sections missing
        _framed(b'{"a":1,"$raw":[["s",-1]]}') + b"abcd",  # a negative length
        _framed(b'{"a":1,"$raw":[["s",4.0]]}') + b"abcd",  # a length that is not an integer
        _framed(b'{"a":1,"$raw":[["s",2],["t",3]]}') + b"abcd",  # sections longer than the file
        _framed(b"[1]") + b"abcd",  # bytes after JSON that lists no sections
    ):
        _resigned(path, bad)
        assert read_signed(tmp_path, "f.json", KEY) is None, bad


def test_a_file_signed_with_another_key_or_name_is_refused(tmp_path: Path) -> None:
    write_signed(tmp_path, "f.json", KEY, {"s": b"abc"})
    assert read_signed(tmp_path, "f.json", b"o" * 32) is None
    (tmp_path / "f.json").rename(tmp_path / "g.json")
    assert read_signed(tmp_path, "g.json", KEY) is None


def test_a_signed_file_reads_the_same_with_either_json_parser(tmp_path, monkeypatch) -> None:
    """Reads take orjson's parser once it is imported, else the standard library's (store._loads):
    the data and the raw sections come back the same either way, and a damaged file is None either way."""
    import sys

    from skillc.incremental import store

    key = b"k" * 32
    data = {"a": [1, -2, 3.5, None, True], "é\u2028": '\x00"\\\U0001f600', "n": {"x": []}, "raw": b"\x00\xff"}
    store.write_signed(tmp_path, "f.json", key, data)
    got = store.read_signed(tmp_path, "f.json", key)
    monkeypatch.delitem(sys.modules, "orjson")
    assert store.read_signed(tmp_path, "f.json", key) == got == data
    path = tmp_path / "f.json"
    raw = path.read_bytes()
    path.write_bytes(raw.replace(b'"n"', b'"m"'))
    assert store.read_signed(tmp_path, "f.json", key) is None
