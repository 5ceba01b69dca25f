"""`load()` of an unknown command in the three readers, two versions side by side (issue 19).

    python bench/unknown_skill.py DIST [--before REF] [--after REF] [--runs 5] [--readers py,ts,rs]

DIST is a built dist/ (`python bench/gen.py DIR --skills 100000 --personas 12`, then
`skillc build` in DIR: DIR/dist). Each version is taken from git (`git archive`) into a
temporary folder, so the figures compare two commits, not the work tree: the Python reader is
imported from there (byte-compiled first), the TypeScript one built there (`npm run build`, with
this checkout's `readers/typescript/node_modules`, so run `npm ci` there first) and the Rust one
linked into a small probe built there (`cargo build --release --offline` with Debian's crates,
as readers/rust/test-debian.sh). Every run is a new process that opens DIST, times one call of
`load(persona, command)` that raises UnknownSkill and reads its own /proc/self/status:

- **time**: wall time and CPU time (user + system, of the process) of the call, medians of the
  runs; on a machine shared with other work, wall time includes waiting for a core, so the
  targets are judged on CPU time;
- **memory**: the process's peak resident set after the call less its resident set just before
  it (VmHWM - VmRSS), the largest of the runs: what the call itself costs, whatever the
  runtime's own size (a Node process starts at about 45 MiB);
- **process peak**: VmHWM after the call, for the record.

The commands: one no build holds (`no-such-skill`), and a typo of the first command of the
persona's catalog (two neighbouring letters swapped), which the new readers answer with a
suggestion. Standard library only; Linux (/proc).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tarfile
import tempfile
from io import BytesIO
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from bench.reader_calls import CARGO_OFFLINE  # noqa: E402 (after the path it is found on)

NODE_MODULES = REPO / "readers" / "typescript" / "node_modules"
TARGET_MS, TARGET_MIB = 50.0, 30.0

# Each probe prints one JSON line: {"ms": ..., "grew_kib": ..., "peak_kib": ..., "message": ...}
PY_PROBE = r"""
import json, sys, time
from skillc import reader
def status():
    fields = dict(line.split(":", 1) for line in open("/proc/self/status"))
    return int(fields["VmRSS"].split()[0]), int(fields["VmHWM"].split()[0])
dist = reader.open(sys.argv[1])
rss, _ = status()
start, cpu = time.perf_counter(), time.process_time()
try:
    dist.load(sys.argv[2], sys.argv[3])
except reader.UnknownSkill as exc:
    ms, cpu_ms = (time.perf_counter() - start) * 1000, (time.process_time() - cpu) * 1000
    _, hwm = status()
    print(json.dumps({"ms": ms, "cpu_ms": cpu_ms, "grew_kib": hwm - rss, "peak_kib": hwm,
                      "message": str(exc)[:160],
                      "module": reader.__file__}))
"""

TS_PROBE = r"""
import { readFileSync } from "node:fs";
const { open, UnknownSkill } = await import(process.argv[2]);
const status = () => {
  const text = readFileSync("/proc/self/status", "utf8");
  const kib = (key) => Number(new RegExp(`^${key}:\\s+(\\d+)`, "m").exec(text)[1]);
  return [kib("VmRSS"), kib("VmHWM")];
};
const dist = open(process.argv[3]);
const [rss] = status();
const start = process.hrtime.bigint();
const cpu = process.cpuUsage();
try {
  dist.load(process.argv[4], process.argv[5]);
} catch (err) {
  if (!(err instanceof UnknownSkill)) throw err;
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  const used = process.cpuUsage(cpu);
  const cpu_ms = (used.user + used.system) / 1000;
  const [, hwm] = status();
  const message = err.message.slice(0, 160);
  console.log(JSON.stringify({ ms, cpu_ms, grew_kib: hwm - rss, peak_kib: hwm, message }));
}
"""

RS_PROBE = r"""
use std::time::Instant;
#[repr(C)]
struct Timespec {
    sec: i64,
    nsec: i64,
}
extern "C" {
    fn clock_gettime(clock: i32, out: *mut Timespec) -> i32;
}
fn cpu_ms() -> f64 {
    let mut t = Timespec { sec: 0, nsec: 0 };
    unsafe { clock_gettime(2, &mut t) }; // CLOCK_PROCESS_CPUTIME_ID on Linux
    t.sec as f64 * 1000.0 + t.nsec as f64 / 1e6
}
fn status() -> (u64, u64) {
    let text = std::fs::read_to_string("/proc/self/status").unwrap();
    let kib = |key: &str| -> u64 {
        let line = text.lines().find(|l| l.starts_with(key)).unwrap();
        line.split_whitespace().nth(1).unwrap().parse().unwrap()
    };
    (kib("VmRSS:"), kib("VmHWM:"))
}
fn main() {
    let argv: Vec<String> = std::env::args().collect();
    let dist = skillc_reader::Dist::open(&argv[1]).unwrap();
    let (rss, _) = status();
    let (start, cpu) = (Instant::now(), cpu_ms());
    let err = dist.load(&argv[2], &argv[3], None).unwrap_err();
    let (ms, cpu) = (start.elapsed().as_secs_f64() * 1000.0, cpu_ms() - cpu);
    let (_, hwm) = status();
    let message: String = err.to_string().chars().take(160).collect();
    println!(
        "{{\"ms\": {}, \"cpu_ms\": {}, \"grew_kib\": {}, \"peak_kib\": {}, \"message\": {:?}}}",
        ms, cpu, hwm - rss, hwm, message
    );
}
"""


def extract(ref: str, dest: Path) -> Path:
    """The reader sources of a commit: compiler/ and readers/, from git, below dest."""
    data = subprocess.run(
        ["git", "archive", "--format=tar", ref, "compiler", "readers"],
        cwd=REPO,
        capture_output=True,
        check=True,
    ).stdout
    dest.mkdir(parents=True)
    with tarfile.open(fileobj=BytesIO(data)) as tar:
        tar.extractall(dest, filter="data")
    return dest


def prepare_py(tree: Path) -> list[str]:
    (tree / "pypath").mkdir()
    (tree / "pypath" / "skillc").symlink_to(tree / "compiler")
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(tree / "compiler")], check=True)
    return [sys.executable, "-c", PY_PROBE]


def prepare_ts(tree: Path) -> list[str]:
    package = tree / "readers" / "typescript"
    (package / "node_modules").symlink_to(NODE_MODULES)
    subprocess.run(["npm", "run", "-s", "build"], cwd=package, check=True, stdout=subprocess.DEVNULL)
    probe = tree / "probe.mjs"
    probe.write_text(TS_PROBE)
    return ["node", str(probe), (package / "build" / "skillc-reader.js").as_uri()]


def prepare_rs(tree: Path) -> list[str]:
    crate = tree / "probe"
    (crate / "src").mkdir(parents=True)
    reader = tree / "readers" / "rust"
    (crate / "Cargo.toml").write_text(
        '[package]\nname = "probe"\nversion = "0.0.0"\nedition = "2021"\n\n'
        f"[dependencies]\nskillc-reader = {{ path = {json.dumps(str(reader))} }}\n"
    )
    (crate / "src" / "main.rs").write_text(RS_PROBE)
    subprocess.run(
        ["cargo", "build", "--release", "-q", *CARGO_OFFLINE],
        cwd=crate,
        check=True,
        stdout=subprocess.DEVNULL,
    )
    return [str(crate / "target" / "release" / "probe")]


PREPARE = {"py": prepare_py, "ts": prepare_ts, "rs": prepare_rs}
NAMES = {"py": "Python", "ts": "TypeScript", "rs": "Rust"}


def run(argv: list[str], tree: Path, dist: Path, persona: str, command: str) -> dict[str, object]:
    env = {"PATH": os.environ["PATH"], "PYTHONPATH": str(tree / "pypath")}  # no PYTHONDONTWRITEBYTECODE
    out = subprocess.run([*argv, str(dist), persona, command], env=env, capture_output=True, text=True)
    if out.returncode != 0 or not out.stdout.strip():
        raise SystemExit(f"{argv[0]} failed on {command!r}:\n{out.stderr[-2000:]}")
    result: dict[str, object] = json.loads(out.stdout)
    if not str(result.get("module", tree)).startswith(str(tree)):  # not an installed skillc
        raise SystemExit(f"the probe imported {result['module']}, not the reader of {tree}")
    return result


def typo(dist: Path, persona: str) -> str:
    """The first command of the persona's catalog with two neighbouring letters swapped."""
    index = json.loads((dist / "_index.json").read_text("utf-8"))
    digest = index["personas"][persona]["meta"]
    meta = json.loads((dist / "objects" / digest[:2] / digest).read_text("utf-8"))
    command: str = meta["included"][0]
    at = next(i for i in range(len(command) - 1) if command[i].isalpha() and command[i + 1].isalpha())
    return command[:at] + command[at + 1] + command[at] + command[at + 2 :]


def machine() -> str:
    cpu = re.search(r"model name\s*:\s*(.*)", Path("/proc/cpuinfo").read_text())
    node = subprocess.run(["node", "--version"], capture_output=True, text=True).stdout.strip()
    rustc = subprocess.run(["rustc", "--version"], capture_output=True, text=True).stdout.split()[1]
    return (
        f"{os.cpu_count()} cores, {cpu.group(1) if cpu else 'unknown CPU'}, CPython "
        f"{sys.version.split()[0]}, node {node}, rustc {rustc}, load average "
        f"{os.getloadavg()[0]:.1f}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("dist", type=Path)
    parser.add_argument("--before", default="main", help="git ref of the old readers (default: main)")
    parser.add_argument("--after", default="HEAD", help="git ref of the new readers (default: HEAD)")
    parser.add_argument("--persona", help="default: the index's first persona")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--readers", default="py,ts,rs")
    args = parser.parse_args()
    dist = args.dist.resolve()
    persona = args.persona or sorted(json.loads((dist / "_index.json").read_text("utf-8"))["personas"])[0]
    commands = ["no-such-skill", typo(dist, persona)]
    readers = args.readers.split(",")
    with tempfile.TemporaryDirectory() as tmp:
        versions = {}
        for label, ref in (("before", args.before), ("after", args.after)):
            tree = extract(ref, Path(tmp) / label)
            versions[label] = (tree, {r: PREPARE[r](tree) for r in readers})
        print(f"{machine()}\ndist {dist}, persona {persona}, {args.runs} runs each (a new process per run)")
        print(
            f"before = {args.before}, after = {args.after}; targets < {TARGET_MS:g} ms, < {TARGET_MIB:g} MiB\n"
        )
        print(
            "| reader | command | before: wall ms | before: CPU ms | before: MiB | after: wall ms | "
            "after: CPU ms | after: MiB | after: process peak MiB | met |"
        )
        print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
        messages = []
        for r in readers:
            for command in commands:
                row: dict[str, list[dict[str, object]]] = {"before": [], "after": []}
                for _ in range(args.runs):  # interleaved: a slow moment of the machine hits both alike
                    for label, (tree, argvs) in versions.items():
                        row[label].append(run(argvs[r], tree, dist, persona, command))
                ms = {k: statistics.median(float(str(x["ms"])) for x in v) for k, v in row.items()}
                cpu = {k: statistics.median(float(str(x["cpu_ms"])) for x in v) for k, v in row.items()}
                mib = {k: max(int(str(x["grew_kib"])) for x in v) / 1024 for k, v in row.items()}
                peak = max(int(str(x["peak_kib"])) for x in row["after"]) / 1024
                met = "yes" if cpu["after"] < TARGET_MS and mib["after"] < TARGET_MIB else "no"
                print(
                    f"| {NAMES[r]} | `{command}` | {ms['before']:.1f} | {cpu['before']:.1f} | "
                    f"{mib['before']:.1f} | {ms['after']:.1f} | {cpu['after']:.1f} | {mib['after']:.1f} | "
                    f"{peak:.1f} | {met} |"
                )
                messages.append(f"{NAMES[r]}, after: {row['after'][0]['message']}")
        print("\n" + "\n".join(messages))


if __name__ == "__main__":
    main()
