#!/usr/bin/env bash
# Measures the production image's size without a Docker engine: assembles its root file system
# from deploy/Dockerfile's runtime stage and counts the bytes a `docker image ls` would report.
#
#   sudo scripts/measure-image.sh STAGED_BIN_DIR [WORK_DIR]
#
# STAGED_BIN_DIR holds what the build stage leaves in /staging/bin: deploy/stage-binaries.sh makes
# it, as the build stage does. WORK_DIR (default /tmp/widgetbus-image) keeps the base between runs.
#
# 1. The base, debian:bookworm-slim, made as that image is made: `debootstrap --variant=minbase
#    bookworm`, then slimmed as debuerreotype slims it (no docs but copyright files, man pages,
#    info or locales; dpkg told to leave them out of later installs; apt's cache and lists
#    emptied, and apt told to keep no caches after an install).
# 2. The runtime stage's own steps, read from deploy/Dockerfile and carried out in order: every
#    RUN in a chroot of that base, every COPY from the repository or (--from=build) from
#    STAGED_BIN_DIR.
# 3. The sizes: the whole tree, the base, and what each step added (apparent sizes: the bytes
#    of the image's layers, which is what Docker reports), and the gzip-compressed tree (about
#    what a registry pull transfers).
#
# Needs root (debootstrap, chroot), Debian's debootstrap package and a Debian mirror.
set -euo pipefail

staged="${1:?usage: measure-image.sh STAGED_BIN_DIR [WORK_DIR]}"
work="${2:-/tmp/widgetbus-image}"
repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
dockerfile="$repo_root/deploy/Dockerfile"
staged="$(cd "$staged" && pwd)"

megabytes() { awk '{ printf "%.1f MB", $1 / 1e6 }'; }
size_of() { du -sbx "$1" | cut -f1; }

base="$work/bookworm-slim"
if [[ ! -f "$base/.complete" ]]; then
    rm -rf "$base"
    debootstrap --variant=minbase bookworm "$base" http://deb.debian.org/debian >&2
    # debuerreotype's slimify, as the official -slim images get it.
    cat >"$base/etc/dpkg/dpkg.cfg.d/docker" <<'EOF'
path-exclude /usr/share/doc/*
path-include /usr/share/doc/*/copyright
path-exclude /usr/share/info/*
path-exclude /usr/share/linda/*
path-exclude /usr/share/lintian/overrides/*
path-exclude /usr/share/locale/*
path-exclude /usr/share/man/*
path-exclude /usr/share/groff/*
EOF
    # ... and its apt settings: no package caches kept after an install, no translations.
    cat >"$base/etc/apt/apt.conf.d/docker-clean" <<'EOF'
DPkg::Post-Invoke { "rm -f /var/cache/apt/archives/*.deb /var/cache/apt/archives/partial/*.deb /var/cache/apt/*.bin || true"; };
APT::Update::Post-Invoke { "rm -f /var/cache/apt/archives/*.deb /var/cache/apt/archives/partial/*.deb /var/cache/apt/*.bin || true"; };
Dir::Cache::pkgcache "";
Dir::Cache::srcpkgcache "";
EOF
    echo 'Acquire::Languages "none";' >"$base/etc/apt/apt.conf.d/docker-no-languages"
    echo 'Apt::AutoRemove::SuggestsImportant "false";' >"$base/etc/apt/apt.conf.d/docker-autoremove-suggests"
    find "$base/usr/share/doc" -mindepth 1 -not -name copyright -not -type d -delete
    find "$base/usr/share/doc" -mindepth 1 -type d -empty -delete
    rm -rf "$base"/usr/share/{info,linda,locale,man,groff}/* "$base"/usr/share/lintian/overrides/*
    rm -rf "$base"/var/cache/apt/*.bin "$base"/var/cache/apt/archives/*.deb "$base"/var/lib/apt/lists/*
    touch "$base/.complete"
fi

root="$work/rootfs"
umount "$root/proc" 2>/dev/null || true  # left mounted by a run that was killed
rm -rf "$root"
cp -a "$base" "$root"
rm -f "$root/.complete"
base_bytes=$(size_of "$root")

# The runtime stage: everything after its FROM, with continuation lines joined.
steps=$(awk '/^FROM \$\{RUNTIME_IMAGE\}/ { on = 1; next } on' "$dockerfile" \
    | sed -e 's/[[:space:]]*#.*$//' | awk '/\\$/ { sub(/\\$/, ""); printf "%s", $0; next } { print }' \
    | sed -e 's/^[[:space:]]*//' | grep -E '^(RUN|COPY) ')

mount --bind /proc "$root/proc"
trap 'umount "$root/proc" 2>/dev/null || true' EXIT
cp /etc/resolv.conf "$root/etc/resolv.conf"

report=()
while IFS= read -r step; do
    before=$(size_of "$root")
    case "$step" in
        RUN\ *)
            # As Docker runs a RUN line: /bin/sh -c, and no stdin (which would be the list of steps).
            chroot "$root" /usr/bin/env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root \
                /bin/sh -c "${step#RUN }" </dev/null >&2
            ;;
        COPY\ --from=build\ *)
            read -r _ _ source destination <<<"$step"
            [[ "$source" == /staging/bin/ ]] || { echo "measure-image: unexpected COPY --from=build source $source" >&2; exit 2; }
            mkdir -p "$root$destination"
            cp -a "$staged/." "$root$destination"
            ;;
        COPY\ *)
            read -r _ source destination <<<"$step"
            mkdir -p "$(dirname "$root$destination")"
            cp -a "$repo_root/$source" "$root$destination"
            ;;
    esac
    report+=("$(( $(size_of "$root") - before ))	${step:0:100}")
done <<<"$steps"
umount "$root/proc"
trap - EXIT
# Docker writes its own resolv.conf at run time; the image has none of ours.
rm -f "$root/etc/resolv.conf"

total=$(size_of "$root")
compressed=$(tar -C "$root" -cf - . | gzip -6 | wc -c)
echo "base (debian:bookworm-slim, rebuilt): $(echo "$base_bytes" | megabytes)"
for line in "${report[@]}"; do
    printf '  + %s  %s\n' "$(echo "${line%%	*}" | megabytes)" "${line#*	}"
done
echo "image: $(echo "$total" | megabytes) ($total bytes); gzip-compressed: $(echo "$compressed" | megabytes)"
