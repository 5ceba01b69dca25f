// Bounded reads of regular files only: nothing blocks, nothing is read past its cap.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { FileRefused, readRegular } from "../src/files.js";

const tmp = mkdtempSync(join(tmpdir(), "skillc-reader-files-"));
after(() => rmSync(tmp, { recursive: true, force: true }));

const refusal = (path: string, cap = 100, follow = true): string => {
  try {
    readRegular(path, cap, follow);
  } catch (err) {
    assert.ok(err instanceof FileRefused);
    return err.code;
  }
  return "read";
};

test("a regular file is read whole, up to its cap exactly", () => {
  writeFileSync(join(tmp, "f"), "0123456789");
  assert.deepStrictEqual(Buffer.from(readRegular(join(tmp, "f"), 10)), Buffer.from("0123456789"));
  assert.equal(refusal(join(tmp, "f"), 9), "TOOLARGE");
  writeFileSync(join(tmp, "empty"), "");
  assert.equal(readRegular(join(tmp, "empty"), 0).length, 0);
});

test("a FIFO, a directory and a device are refused at once", () => {
  execFileSync("mkfifo", [join(tmp, "fifo")]);
  assert.equal(refusal(join(tmp, "fifo")), "NOTREG"); // no writer: a blocking open would hang here
  assert.equal(refusal(tmp), "NOTREG");
  assert.equal(refusal("/dev/zero"), "NOTREG");
  symlinkSync("/dev/zero", join(tmp, "zero"));
  assert.equal(refusal(join(tmp, "zero")), "NOTREG");
});

test("system refusals keep their errno name; symlinks are followed unless asked not to", () => {
  assert.equal(refusal(join(tmp, "missing")), "ENOENT");
  symlinkSync("loop", join(tmp, "loop"));
  assert.equal(refusal(join(tmp, "loop")), "ELOOP");
  writeFileSync(join(tmp, "target"), "x");
  symlinkSync("target", join(tmp, "link"));
  assert.equal(refusal(join(tmp, "link")), "read");
  assert.equal(refusal(join(tmp, "link"), 100, false), "ELOOP");
});
