#!/usr/bin/env bash
# The jail's own tests and the hostile suite with the referee as an ordinary user: the jail then
# runs in a user namespace of its own, without cgroups (rlimits instead), and every attack must
# still fail. Run as root (CI does, after `cargo test`): it builds the test binaries if needed,
# copies them, the `pitboss` binary and the hostile fixtures to a world-readable folder (the
# checkout may lie in a folder the user cannot read) and runs them as uid 65534 (`nobody`;
# PITBOSS_NONROOT_UID=N for another) with setpriv, no capabilities, a home and TMPDIR of its own.
#
#   sudo bash scripts/hostile_nonroot.sh            # both suites
#   sudo bash scripts/hostile_nonroot.sh channels   # only the tests whose name contains TEXT
set -euo pipefail
cd "$(dirname "$0")/.."
uid=${PITBOSS_NONROOT_UID:-65534}
if [ "$(id -u)" -ne 0 ]; then
    echo "hostile_nonroot.sh: run as root (it switches to uid $uid to be an ordinary user)" >&2
    exit 2
fi
gid=$(getent passwd "$uid" | cut -d: -f4 || true)
gid=${gid:-$uid}

cargo build --release -p pitboss-cli
# The test binaries of the jail and the hostile suite, listed from the whole workspace's build:
# `-p pitboss-jail` would resolve other features and build them again (see crates/hack).
bins=$(cargo test --release --workspace --no-run --message-format=json 2>/dev/null | python3 -c '
import json, sys
for line in sys.stdin:
    m = json.loads(line)
    if m.get("reason") != "compiler-artifact" or not m.get("executable") or not m["profile"]["test"]:
        continue
    package = m["package_id"]
    name = m["target"]["name"]
    if "/crates/jail#" in package or ("/crates/cli#" in package and name == "hostile"):
        print(m["executable"])')

work=$(mktemp -d /tmp/pitboss-nonroot-XXXXXX)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/repo/crates/external/tests/fixtures" "$work/bin" "$work/tmp" "$work/home" \
    "$work/target-tmp"
cp -r crates/external/tests/fixtures/hostile "$work/repo/crates/external/tests/fixtures/"
cp target/release/pitboss "$work/bin/"
for b in $bins; do cp "$b" "$work/bin/"; done
chmod -R a+rX "$work"
chown "$uid:$gid" "$work/tmp" "$work/home" "$work/target-tmp"

status=0
for b in $bins; do
    name=$(basename "$b")
    echo
    echo "==> $name as uid $uid (not root)"
    setpriv --reuid="$uid" --regid="$gid" --clear-groups --inh-caps=-all \
        env -i PATH=/usr/local/bin:/usr/bin:/bin LANG=C.UTF-8 HOME="$work/home" \
        TMPDIR="$work/tmp" PITBOSS_HOSTILE_REPO="$work/repo" \
        PITBOSS_HOSTILE_BIN="$work/bin/pitboss" PITBOSS_HOSTILE_TARGET_TMP="$work/target-tmp" \
        "$work/bin/$name" --test-threads 1 "$@" || status=1
    # Nothing may be left behind by the suite: scratch folders, check folders, markers.
    left=$(find "$work/tmp" "$work/target-tmp" -mindepth 1 -maxdepth 1 | head -20)
    if [ -n "$left" ]; then
        echo "left in the temp folders after $name:" >&2
        echo "$left" >&2
        status=1
    fi
done
exit $status
