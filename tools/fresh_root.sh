#!/usr/bin/env bash
# The README's two commands on a machine with nothing installed: a bare Debian 12 root made
# with `debootstrap --variant=minbase` (no compiler, no Python, no git), the committed tree
# cloned into it, each command run inside with a clean environment and timed. A developer's
# machine hides a missing install step (CI ran green without git); this does not.
#
#   tools/fresh_root.sh [main|test|both] [--root DIR] [--keep-root]      (as root)
#
# main: tools/run_suite.sh, test: tools/test_all.sh, both (default): one after the other.
# DIR (default /var/tmp/satasim-fresh-root) is made once and reused, so a second run skips
# debootstrap; the clone inside is made anew each time from HEAD (commit first: uncommitted
# changes are not part of the check). --keep-root keeps the packages the previous run
# installed; without it the root is debootstrapped afresh, the honest check after a change
# to tools/install_deps.sh. Logs: DIR.<command>.log; the exit status is the first failure's.
set -euo pipefail

usage() { echo "usage: tools/fresh_root.sh [main|test|both] [--root DIR] [--keep-root]" >&2; exit 2; }
what=both root=/var/tmp/satasim-fresh-root keep=0
while [[ $# -gt 0 ]]; do
    case "$1" in
        main|test|both) what=$1 ;;
        --root) [[ $# -ge 2 ]] || usage; root=$2; shift ;;
        --keep-root) keep=1 ;;
        -h|--help) sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "fresh_root.sh: unknown argument '$1'" >&2; usage ;;
    esac
    shift
done
[[ $(id -u) -eq 0 ]] || { echo "fresh_root.sh: needs root (debootstrap, chroot, mounts)" >&2; exit 2; }
[[ $root == /* && $root != / ]] || { echo "fresh_root.sh: --root must be an absolute path other than /" >&2; exit 2; }

checkout=$(cd "$(dirname "$0")/.." && pwd)
git -C "$checkout" rev-parse --verify -q HEAD >/dev/null ||
    { echo "fresh_root.sh: $checkout is not a git checkout with a commit" >&2; exit 2; }
if [[ -n $(git -C "$checkout" status --porcelain --untracked-files=no) ]]; then
    echo "fresh_root.sh: note: uncommitted changes are not checked (the root gets HEAD, $(git -C "$checkout" rev-parse --short HEAD))"
fi

# The same Debian mirror this machine uses (a deb822 .sources file or a sources.list line).
mirror=$(sed -n 's/^URIs:[[:space:]]*\([^[:space:]]*\).*/\1/p; s/^deb[[:space:]]\+\(\[[^]]*\][[:space:]]\+\)\{0,1\}\([^[:space:]]*\).*/\2/p' \
    /etc/apt/sources.list.d/*.sources /etc/apt/sources.list 2>/dev/null | head -n1)
mirror=${mirror:-http://deb.debian.org/debian}

if ! command -v debootstrap >/dev/null; then
    echo "fresh_root.sh: installing debootstrap"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap >/dev/null
fi

mounted=()
unmount_all() {
    local m
    for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do
        m=${mounted[$i]}
        umount -R "$m" 2>/dev/null || umount -l "$m" 2>/dev/null || true
    done
    mounted=()
}
trap unmount_all EXIT

if [[ $keep -eq 0 && -e $root ]]; then
    # never delete through a mount that is still there (a previous run killed mid-way)
    for m in proc sys dev; do umount -R "$root/$m" 2>/dev/null || true; done
    if grep -q " $root/" /proc/mounts; then
        echo "fresh_root.sh: something is still mounted under $root; unmount it first" >&2; exit 1
    fi
    rm -rf --one-file-system "$root"
fi
started=$SECONDS
if [[ ! -x $root/usr/bin/apt-get ]]; then
    echo "fresh_root.sh: debootstrap --variant=minbase bookworm $root ($mirror)"
    mkdir -p "$root"
    if ! debootstrap --variant=minbase bookworm "$root" "$mirror" >"$root.debootstrap.log" 2>&1; then
        tail -n5 "$root.debootstrap.log" >&2; exit 1
    fi
    echo "fresh_root.sh: root made in $((SECONDS - started)) s"
fi

rm -rf --one-file-system "$root/satasim"
git clone -q --no-hardlinks "$checkout" "$root/satasim"
# The shared reference notes sit beside the checkout on the developers' machines; a user's
# clone has none, and nothing in the two commands may need them.
cp /etc/resolv.conf "$root/etc/resolv.conf"
mount -t proc proc "$root/proc"; mounted+=("$root/proc")
mount --rbind /sys "$root/sys"; mount --make-rslave "$root/sys"; mounted+=("$root/sys")
mount --rbind /dev "$root/dev"; mount --make-rslave "$root/dev"; mounted+=("$root/dev")

rc=0
run_in_root() { # $1: label, $2: the README's command
    local label=$1 cmd=$2 t0=$SECONDS status=0
    echo "fresh_root.sh: [$label] $cmd (log: $root.$label.log)"
    chroot "$root" /usr/bin/env -i HOME=/root TERM=dumb LANG=C.UTF-8 \
        PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
        /bin/bash -c "cd /satasim && $cmd" >"$root.$label.log" 2>&1 || status=$?
    echo "fresh_root.sh: [$label] exit $status after $((SECONDS - t0)) s; its last lines:"
    tail -n4 "$root.$label.log" | sed 's/^/    /'
    [[ $rc -ne 0 ]] || rc=$status
}
case $what in
    main) run_in_root main "bash tools/run_suite.sh" ;;
    test) run_in_root test "bash tools/test_all.sh" ;;
    both) run_in_root main "bash tools/run_suite.sh"; run_in_root test "bash tools/test_all.sh" ;;
esac
echo "fresh_root.sh: $what: exit $rc, $((SECONDS - started)) s in all"
exit $rc
