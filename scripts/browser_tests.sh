#!/usr/bin/env bash
# Headless-browser tests of the web pages (crates/web/browser/*.test.mjs), on Debian's Chromium
# driven by playwright-core (which downloads no browser). Installs what is missing: chromium
# (apt-get, as root), Node.js, the npm packages of crates/web/browser (from its package-lock.json);
# builds the page generator and the pitboss binary with cargo --release; runs the tests.
#
# Usage: scripts/browser_tests.sh [--filter TEXT] [FILE.test.mjs ...]
# Environment: CHROMIUM (default /usr/bin/chromium); BROWSER_OUT, where screenshots and pages go
# (default target/browser).
set -euo pipefail
cd "$(dirname "$0")/.."

apt_install() {
    if [[ $(id -u) -ne 0 ]]; then
        echo "browser tests: $* missing, and only root can apt-get install it" >&2
        exit 1
    fi
    echo "browser tests: apt-get install $*" >&2
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null
}

chromium=${CHROMIUM:-/usr/bin/chromium}
[[ -x $chromium ]] || apt_install chromium
command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1 || apt_install nodejs npm

(
    cd crates/web/browser
    if [[ ! -f node_modules/playwright-core/package.json ]]; then
        if [[ -f package-lock.json ]]; then
            npm ci --no-audit --no-fund --loglevel=error
        else
            npm install --no-audit --no-fund --loglevel=error
        fi
    fi
)

cargo build --release -q --workspace --example viewer_page
# service.test.mjs runs the real `pitboss serve` on a fresh folder.
cargo build --release -q -p pitboss-cli
export VIEWER_PAGE_PREBUILT=1 PITBOSS_PREBUILT=1
exec node crates/web/browser/run.mjs "$@"
